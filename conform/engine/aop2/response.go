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
	Actions                  int
}

// checkResponse validates a RESPONSE, raw and decoded as m, against the schema
// (schemaProblems) and the task and attempt it answers (§1.2, §5, bindings).
// Problems with a rule in fatalRules make it malformed (E_MALFORMED_RESPONSE);
// the others are reported and tolerated.
func checkResponse(raw []byte, m map[string]any, t *Task, provider, model string) (responseView, []Problem) {
	var v responseView
	ps := checkHeader(m)
	ps = append(ps, schemaProblems(raw, aop2lint.KindResponse)...)
	if sid, _ := str(m, "session_id"); sid != t.SessionID {
		ps = append(ps, Problem{"AOP2-SEQ-001", "/session_id", fmt.Sprintf("session_id %q must be the TASK's %q", sid, t.SessionID)})
	}
	if tid, _ := str(m, "task_id"); tid != t.TaskID {
		ps = append(ps, Problem{"AOP2-SEQ-001", "/task_id", fmt.Sprintf("task_id %q must be the TASK's %q", tid, t.TaskID)})
	}
	if agent := object(m, "agent"); agent != nil {
		p, _ := str(agent, "provider")
		md, _ := str(agent, "model")
		if p != provider || md != model {
			ps = append(ps, Problem{"aop2/9/fallback-model", "/agent", fmt.Sprintf("agent reports %s/%s but ran as %s/%s: report the model you ran as", p, md, provider, model)})
		}
	}
	if ts := object(m, "task_status"); ts != nil {
		v.State, _ = str(ts, "state")
		sig, hasSig := str(ts, "final_signal")
		v.Signal = sig
		if !terminal[v.State] && !refused(ps, "/task_status/state") {
			ps = append(ps, Problem{"aop2/5/final-response", "/task_status/state", fmt.Sprintf("the final RESPONSE has state %s: it must be COMPLETED, FAILED, ABORTED or SKIPPED", v.State)})
		}
		switch {
		case !hasSig && t.Policy.RequireFinalSignal:
			ps = append(ps, Problem{"AOP2-SEQ-002", "/task_status/final_signal", "guard_rails.require_final_signal: task_status.final_signal is required"})
		case refused(ps, "/task_status/final_signal"):
		case hasSig && (sig == "SUCCESS" || sig == "PARTIAL_SUCCESS") && terminal[v.State] && v.State != "COMPLETED":
			ps = append(ps, Problem{"aop2/5/final-response", "/task_status", fmt.Sprintf("final_signal %s contradicts state %s", sig, v.State)})
		case !hasSig:
			v.Signal = signalOf(v.State)
		}
	}
	es := object(m, "execution_summary")
	summary := ""
	if es != nil {
		summary, _ = str(es, "summary")
		if acts, ok := es["actions"].([]any); ok {
			v.Actions = len(acts)
		}
	}
	if t.Policy.RequireMinimalReport && (strings.TrimSpace(summary) == "" || v.Actions == 0) {
		ps = append(ps, Problem{"AOP2-SEQ-003", "/execution_summary", "guard_rails.require_minimal_report: execution_summary needs a non-empty summary and actions"})
	}
	if ed := object(m, "error_details"); ed != nil {
		v.ErrorCode, _ = str(ed, "error_code")
	}
	if ct := object(m, "cost_tracking"); ct != nil {
		if c, ok := num(ct, "actual_cost_usd"); ok {
			v.CostUSD, v.HasCost = c, true
		} else if c, ok := num(ct, "estimated_cost_usd"); ok {
			v.CostUSD, v.HasCost = c, true
		}
		in, _ := num(ct, "tokens_input")
		out, _ := num(ct, "tokens_output")
		v.Tokens = int64(in + out)
	}
	checkExtensions(m, &ps)
	return v, ps
}

// fatalRules make a RESPONSE malformed; other problems are tolerated (the
// orchestrator ignores unknown extensions keys, §3).
var fatalRules = map[string]bool{
	"AOP2-VERSION-002": true, "AOP2-SCHEMA-001": true, "AOP2-SEQ-001": true,
	"aop2/9/fallback-model": true, "aop2/5/final-response": true, "AOP2-SEQ-002": true,
	"AOP2-SEQ-003": true,
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
