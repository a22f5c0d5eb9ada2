package aop2

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all" // registers aoplint's protocols for linter.LintBytes
	"github.com/aopkit/aopkit/lint/linter"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// Exception is one deliberate difference between what the engine does with a
// message and what aoplint finds in it. Kind narrows it to TASK (the
// scenario's TASK and a sub-TASK) or RESPONSE ("" for both).
// conform/difftest's TestAOP2EngineAdmitsIffLintClean holds the engine to
// aoplint on the corpora modulo this list.
type Exception struct {
	Rule   string
	Kind   string
	Effect Effect
	Why    string
}

// Effect is what an Exception does.
type Effect int

const (
	// Refuses: a warning of the rule refuses the message.
	Refuses Effect = iota + 1
	// Tolerated: an error of the rule is reported as a violation and does not
	// refuse the message.
	Tolerated
	// Words: an error of the rule refuses the message under its own §12 code,
	// by a check of its own, not as a schema problem.
	Words
)

// Exceptions are the engine's deliberate differences from aoplint, each with
// its reason. Anything else that refuses a TASK (v1 fallback, a sub-TASK's
// E_SCHEMA_VALIDATION) or a RESPONSE (E_MALFORMED_RESPONSE) is an error
// aoplint reports in the message, or a check of the message against the TASK
// it answers (AOP2-SEQ-001's ids, the guard rails of AOP2-SEQ-002/003, the
// model of aop2/9/fallback-model), which one message cannot show.
var Exceptions = []Exception{
	{Rule: "AOP2-EXT-001", Effect: Tolerated,
		Why: "§3: the orchestrator ignores extensions keys it does not know; the scenario's TASK is dispatched and a RESPONSE taken, the key reported as a violation (a sub-TASK with one is refused, handleDelegation)"},
	{Rule: "AOP2-LIMIT-002", Effect: Words,
		Why: "§4: the item limits are checked before dispatch (checkLimits) under E_PAYLOAD_TOO_LARGE, not as a schema problem"},
	{Rule: "AOP2-LIMIT-003", Effect: Words,
		Why: "§4: the size limits are checked before dispatch (checkLimits, E_PAYLOAD_TOO_LARGE) and on a RESPONSE's size (E_CONTEXT_OVERFLOW)"},
	{Rule: "AOP2-STATUS-001", Kind: "RESPONSE", Effect: Refuses,
		Why: "§5: a RESPONSE is the final report; a state that is not terminal, or that its final_signal contradicts, leaves the orchestrator no outcome to act on: E_MALFORMED_RESPONSE (aoplint warns)"},
}

// Except is the entry of Exceptions that covers d in a message of kind
// ("TASK", "RESPONSE"; nil for none).
func Except(d lint.Diagnostic, kind string) *Exception {
	for i := range Exceptions {
		x := &Exceptions[i]
		if x.Rule == d.Rule && (x.Kind == "" || x.Kind == kind) {
			return x
		}
	}
	return nil
}

// Counts reports whether aoplint's finding d in one message of kind takes part
// in the engine's decision: an error, or a warning an exception makes refuse,
// of a rule of one message (AOP2-SEQ-* judge a run), and not one an exception
// words by a check of its own.
func Counts(d lint.Diagnostic, kind string) bool {
	if strings.HasPrefix(d.Rule, "AOP2-SEQ-") {
		return false
	}
	x := Except(d, kind)
	switch {
	case x != nil && x.Effect == Words:
		return false
	case d.Severity == lint.Error:
		return true
	}
	return d.Severity == lint.Warning && x != nil && x.Effect == Refuses
}

// tolerated reports whether an exception tolerates a problem of rule in a
// message of kind: it is reported, and does not refuse the message.
func tolerated(rule, kind string) bool {
	x := Except(lint.Diagnostic{Rule: rule}, kind)
	return x != nil && x.Effect == Tolerated
}

// worded is the engine's own wording of aoplint's finding of rule at
// pointer: the Problem it reports for it.
type worded struct {
	rule, pointer string
	p             Problem
}

// as words each problem as the finding of its own rule at its own pointer.
func as(ps []Problem) []worded {
	ws := make([]worded, len(ps))
	for i, p := range ps {
		ws[i] = worded{p.Rule, p.Pointer, p}
	}
	return ws
}

// lintProblems are aoplint's findings in raw, one message of kind, that count
// (Counts), as Problems: the engine's wording (hand, its short texts, which
// the reference transcripts hold) of each finding it has one for, in its
// order, then aoplint's message of the others. A hand problem words a finding
// of its rule at its pointer, or any finding at its member or above it (a
// missing member is one rule's finding at the object, another's at the
// member), when both refuse or neither does. The decision is aoplint's: with
// no finding, no problem.
func lintProblems(raw []byte, kind string, hand []worded) []Problem {
	var ds []lint.Diagnostic
	for _, d := range linter.LintBytes("message.json", raw, linter.Options{Protocol: Protocol}).Diagnostics {
		if Counts(d, kind) {
			ds = append(ds, d)
		}
	}
	covered := make([]bool, len(ds))
	var ps []Problem
	for _, h := range hand {
		words := false
		for i, d := range ds {
			same := h.rule == d.Rule && h.pointer == d.Pointer
			if (same || under(h.pointer, d.Pointer)) && tolerated(h.p.Rule, kind) == tolerated(d.Rule, kind) {
				covered[i], words = true, true
			}
		}
		if words {
			ps = append(ps, h.p)
		}
	}
	for i, d := range ds {
		if !covered[i] {
			ps = append(ps, Problem{d.Rule, d.Pointer, d.Message})
		}
	}
	return ps
}

// under reports whether JSON Pointer ptr is tree or lies under it.
func under(ptr, tree string) bool { return ptr == tree || strings.HasPrefix(ptr, tree+"/") }

// AdmitsTask reports whether the engine dispatches data as the scenario's
// TASK, as run decides without engine faults: a JSON object with an
// aop_version of 2.x, no problem ParseTask finds that an exception does not
// tolerate, no hard payload limit (§4) broken. conform/difftest holds it to
// aoplint.
func AdmitsTask(data []byte) bool {
	t, ps, err := ParseTask(data)
	if err != nil || !t.msg.HasString("aop_version") || !strings.HasPrefix(t.msg.AOPVersion, "2.") {
		return false
	}
	for _, p := range ps {
		if !tolerated(p.Rule, "TASK") {
			return false
		}
	}
	_, hard := t.Limits()
	return len(hard) == 0
}

// AdmitsResponse reports whether the engine takes raw as the RESPONSE to a
// TASK it matches (its session_id and task_id, the model it names) and whose
// guard rails ask for nothing (no final signal, no minimal report required),
// as handleResponse decides: within the size limit (§4), no problem
// checkResponse finds that an exception does not tolerate. conform/difftest
// holds it to aoplint.
func AdmitsResponse(raw []byte) bool {
	m, err := aop2spec.DecodeResponse(raw)
	if err != nil {
		return false
	}
	if _, over := aop2spec.OverSize(raw, aop2spec.MaxResponseBytes); over {
		return false
	}
	t := &Task{SessionID: m.SessionID, TaskID: m.TaskID}
	provider, model := "", ""
	if a := m.Agent; a != nil {
		provider, model = a.Provider, a.Model
	}
	_, ps := checkResponse(raw, m, t, provider, model)
	for _, p := range ps {
		if !tolerated(p.Rule, "RESPONSE") {
			return false
		}
	}
	return true
}
