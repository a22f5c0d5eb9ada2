package aof

import (
	"slices"
	"strings"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all" // registers aoplint's protocols for linter.LintBytes
	"github.com/aopkit/aopkit/lint/linter"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// Exception is one deliberate difference between what the router does with a
// message and what aoplint finds in it. Type and Under narrow it to a message
// type and to a member and what lies under it ("" for any); Rule "*" is any
// rule. conform/difftest's TestAOFRouterAdmitsIffLintClean holds the router to
// aoplint on the corpora modulo this list.
type Exception struct {
	Rule   string
	Type   string
	Under  string
	Effect Effect
	Why    string
}

// Effect is what an Exception does.
type Effect int

const (
	// Refuses: a warning of the rule refuses the message (invalid_envelope).
	Refuses Effect = iota + 1
	// Routes: an error of the rule does not keep the message from being routed.
	Routes
	// Words: an error of the rule keeps the message from being routed, under
	// another outcome than invalid_envelope.
	Words
)

// Exceptions are the router's deliberate differences from aoplint, each with
// its reason; the first entry that matches a finding decides. A finding counts
// when it is an error, or a warning of a rule some entry makes refuse. Anything
// else the router refuses is an error aoplint reports.
var Exceptions = []Exception{
	{Rule: "*", Type: spec.TypeHandoffRequest, Under: "/payload/acceptanceCriteria", Effect: Routes,
		Why: "aof-1 §Handoff Error Cases: a bad acceptanceCriteria is logged as protocol.message.schema_error and the handoff is routed (the fault strict-criteria refuses it)"},
	{Rule: "AOF-LIMIT-001", Effect: Refuses,
		Why: "upstream compatibility: the guide sets no sizes, the upstream schema does (reference/README.md, upstream/aof); " +
			"aoplint warns, the reference router refuses as upstream does, measuring as the rule does (UTF-16 code units)"},
	{Rule: "AOF-ENV-007", Effect: Refuses,
		Why: "upstream compatibility: an empty agent name routes to no one; the upstream schema's min(1) refuses it, aoplint warns (the guide asks only for a string)"},
	{Rule: "AOF-ENV-004", Effect: Words,
		Why: "aof-1 §Message Types: an unknown type is logged as protocol.message.unknown and ignored, not rejected (the fault unknown-as-rejected rejects it)"},
	{Rule: "AOF-ENV-005", Type: spec.TypeHandoffRequest, Effect: Words,
		Why: "presentation: the handoff handler refuses the mismatch as taskId_mismatch (aof-1 §Handoff Error Cases), not as invalid_envelope"},
}

// Except is the entry of Exceptions that covers d in a message of type typ
// (nil for none).
func Except(d lint.Diagnostic, typ string) *Exception {
	for i := range Exceptions {
		x := &Exceptions[i]
		if (x.Rule == "*" || x.Rule == d.Rule) && (x.Type == "" || x.Type == typ) &&
			(x.Under == "" || d.Pointer == x.Under || strings.HasPrefix(d.Pointer, x.Under+"/")) {
			return x
		}
	}
	return nil
}

// oneMessageRule reports whether a rule judges one message: the sequence rules
// judge a run, the data-directory rules a directory.
func oneMessageRule(id string) bool {
	return !strings.HasPrefix(id, "AOF-SEQ-") && !strings.HasPrefix(id, "AOF-DIR-")
}

// verdict is aoplint's judgement of one message, as the router reads it.
type verdict struct {
	// envelope and payload are the findings that refuse the message, outside
	// /payload and in it, in aoplint's order.
	envelope, payload []lint.Diagnostic
	// excepted are the findings Exceptions keeps from refusing it.
	excepted []lint.Diagnostic
}

// judge lints line (an AOF/1 message, prefixed or not) with aoplint's rules of
// one message and sorts the findings by Exceptions.
func judge(line []byte, typ string) verdict {
	var v verdict
	for _, d := range linter.LintBytes("message.json", line, linter.Options{Protocol: "aof"}).Diagnostics {
		if !Counts(d) {
			continue
		}
		if x := Except(d, typ); x != nil && x.Effect != Refuses {
			v.excepted = append(v.excepted, d)
			continue
		}
		if d.Pointer == "/payload" || strings.HasPrefix(d.Pointer, "/payload/") {
			v.payload = append(v.payload, d)
		} else {
			v.envelope = append(v.envelope, d)
		}
	}
	return v
}

// Counts reports whether a finding of a message takes part in the router's
// decision: an error, or a warning of a rule an entry of Exceptions makes
// refuse. Rules of a run (AOF-SEQ-*) or of a data directory (AOF-DIR-*) do
// not judge one message.
func Counts(d lint.Diagnostic) bool {
	return oneMessageRule(d.Rule) && (d.Severity == lint.Error || d.Severity == lint.Warning && refusingWarning(d.Rule))
}

// refusingWarning reports whether an entry of Exceptions makes a warning of
// rule refuse a message.
func refusingWarning(rule string) bool {
	return slices.ContainsFunc(Exceptions, func(x Exception) bool { return x.Effect == Refuses && x.Rule == rule })
}

// has reports whether v holds an excepted error of rule.
func (v *verdict) has(rule string) bool {
	return slices.ContainsFunc(v.excepted, func(d lint.Diagnostic) bool { return d.Rule == rule })
}

// exceptedUnder are the excepted findings at ptr or under it.
func (v *verdict) exceptedUnder(ptr string) []lint.Diagnostic {
	var ds []lint.Diagnostic
	for _, d := range v.excepted {
		if d.Pointer == ptr || strings.HasPrefix(d.Pointer, ptr+"/") {
			ds = append(ds, d)
		}
	}
	return ds
}

// problem is what the router says of refusals: nil when there are none; the
// router's own wording (hand) when it names a member aoplint refuses, else the
// first finding's pointer and message. The decision is aoplint's; hand is only
// its presentation (the upstream router's short texts, which the events
// goldens hold). A hand problem with no refusal behind it is a value the
// router cannot hold although aoplint accepts it: it is kept (the difftest
// finds none in the corpora).
func problem(refusals []lint.Diagnostic, hand *fieldError) *fieldError {
	if len(refusals) == 0 {
		return hand
	}
	if hand != nil {
		for _, d := range refusals {
			if related(hand.Pointer, d.Pointer) {
				return hand
			}
		}
	}
	return findingProblem(refusals[0])
}

func findingProblem(d lint.Diagnostic) *fieldError {
	return &fieldError{Pointer: d.Pointer, Msg: d.Message}
}

// related reports whether one JSON Pointer is the other or lies under it.
func related(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// Classify is the router's decision on one line as a message, before any task
// is looked up: KindNotProtocol, KindUnknown, KindRejected with the reason and
// detail the router logs, or KindRouted for a message it hands to its type's
// handler. Router.Handle decides the same way.
func Classify(line []byte) (kind, reason, detail string) {
	if len(line) > spec.MaxMessage {
		return KindRejected, ReasonMessageTooLarge, "message exceeds 10 MiB"
	}
	det, w, _ := detect(line)
	switch det {
	case notProtocol:
		return KindNotProtocol, "", ""
	case badJSON:
		return KindRejected, ReasonInvalidJSON, ""
	}
	env, unknown, e := readEnvelope(line, w)
	switch {
	case e != nil:
	case unknown:
		return KindUnknown, "", ""
	default:
		e = payloadProblem(env)
	}
	if e != nil {
		return KindRejected, ReasonInvalidEnvelope, e.Error()
	}
	if env.Type == spec.TypeHandoffRequest && env.lint.has("AOF-ENV-005") {
		return KindRejected, ReasonTaskIDMismatch, ""
	}
	return KindRouted, "", ""
}
