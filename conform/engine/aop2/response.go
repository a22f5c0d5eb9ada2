package aop2

import (
	"fmt"
	"strings"

	aop2lint "github.com/aopkit/aopkit/lint/aop2"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// responseView is what the engine reads of an accepted RESPONSE.
type responseView struct {
	State, Signal, ErrorCode string
	CostUSD                  float64
	HasCost                  bool
	Tokens                   int64
	// TokensIn and TokensOut are cost_tracking's (0 when absent).
	TokensIn, TokensOut float64
	Actions             int
}

// checkResponse validates a RESPONSE, raw and decoded as m: what aoplint finds
// in it (lintProblems, the schema and the rules of one message, a state
// AOP2-STATUS-001 warns of included: Exceptions), then against the task and
// attempt it answers (§1.2, §5, bindings), which one message cannot show.
// Problems of a rule the exceptions tolerate are reported only; the others
// make it malformed (E_MALFORMED_RESPONSE).
func checkResponse(raw []byte, m *aop2spec.Response, t *Task, provider, model string) (responseView, []Problem) {
	var v responseView
	hand := as(checkHeader(m.Header))
	hand = append(hand, as(schemaProblems(raw, aop2lint.KindResponse))...)
	if ts := m.TaskStatus; ts != nil {
		v.State = ts.State
		sig, hasSig := ts.Signal(), ts.FinalSignal != nil
		v.Signal = sig
		switch {
		case !terminal[v.State]:
			hand = append(hand, worded{"AOP2-STATUS-001", "/task_status/state", Problem{"aop2/5/final-response", "/task_status/state", fmt.Sprintf("the final RESPONSE has state %s: it must be COMPLETED, FAILED, ABORTED or SKIPPED", v.State)}})
		case hasSig && (sig == "SUCCESS" || sig == "PARTIAL_SUCCESS") && v.State != "COMPLETED":
			hand = append(hand, worded{"AOP2-STATUS-001", "/task_status/state", Problem{"aop2/5/final-response", "/task_status", fmt.Sprintf("final_signal %s contradicts state %s", sig, v.State)}})
		}
		if !hasSig {
			v.Signal = signalOf(v.State)
		}
	}
	var ext []Problem
	checkExtensions(&m.Envelope, &ext)
	hand = append(hand, as(ext)...)
	ps := lintProblems(raw, "RESPONSE", hand)
	// The checks against the TASK and the attempt.
	if sid := m.SessionID; sid != t.SessionID {
		ps = append(ps, Problem{"AOP2-SEQ-001", "/session_id", fmt.Sprintf("session_id %q must be the TASK's %q", sid, t.SessionID)})
	}
	if tid := m.TaskID; tid != t.TaskID {
		ps = append(ps, Problem{"AOP2-SEQ-001", "/task_id", fmt.Sprintf("task_id %q must be the TASK's %q", tid, t.TaskID)})
	}
	if agent := m.Agent; agent != nil {
		if p, md := agent.Provider, agent.Model; p != provider || md != model {
			ps = append(ps, Problem{"aop2/9/fallback-model", "/agent", fmt.Sprintf("agent reports %s/%s but ran as %s/%s: report the model you ran as", p, md, provider, model)})
		}
	}
	if ts := m.TaskStatus; ts != nil && ts.FinalSignal == nil && t.Policy.RequireFinalSignal {
		ps = append(ps, Problem{"AOP2-SEQ-002", "/task_status/final_signal", "guard_rails.require_final_signal: task_status.final_signal is required"})
	}
	summary := ""
	if es := m.ExecutionSummary; es != nil {
		summary, v.Actions = es.Summary, len(es.Actions)
	}
	if t.Policy.RequireMinimalReport && (strings.TrimSpace(summary) == "" || v.Actions == 0) {
		ps = append(ps, Problem{"AOP2-SEQ-003", "/execution_summary", "guard_rails.require_minimal_report: execution_summary needs a non-empty summary and actions"})
	}
	if ed := m.ErrorDetails; ed != nil {
		v.ErrorCode = ed.ErrorCode
	}
	if ct := m.CostTracking; ct != nil {
		if c := ct.ActualCostUSD; c != nil {
			v.CostUSD, v.HasCost = *c, true
		} else if c := ct.EstimatedCostUSD; c != nil {
			v.CostUSD, v.HasCost = *c, true
		}
		v.TokensIn, v.TokensOut = value(ct.TokensInput), value(ct.TokensOutput)
		v.Tokens = int64(v.TokensIn + v.TokensOut)
	}
	return v, ps
}

// value is an optional number, 0 when absent.
func value(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func signalOf(state string) string {
	switch state {
	case "COMPLETED":
		return "SUCCESS"
	case "ABORTED":
		return "ABORTED"
	}
	return "FAILURE"
}

// critical errors end the attempt without a usable answer from the executor
// (CRITICAL_ERROR trigger, abort_on_first_critical_error).
var critical = set("E_PROCESS_CRASH", "E_AGENT_NOT_FOUND", "E_MODEL_UNAVAILABLE", "E_HEARTBEAT_FAILURE",
	"E_PERMISSION_DENIED", "E_CONTEXT_OVERFLOW", "E_ROLLBACK_FAILED")

// IsCritical reports whether an error code counts as critical.
func IsCritical(code string) bool { return critical[code] }

// IsErrorCode reports whether s is a code of the §12 error taxonomy
// (lint/spec/aop2).
func IsErrorCode(s string) bool { return aop2spec.IsErrorCode(s) }
