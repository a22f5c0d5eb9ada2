package aos

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all" // registers aoplint's protocols for linter.LintBytes
	"github.com/aopkit/aopkit/lint/linter"
)

// Exception is one deliberate difference between what the guardian answers to
// a request and what aoplint finds in it: a finding of Rule at Pointer (and,
// with Sub, under it) refuses the request whatever its severity (Refuses), or
// an error there does not (Answers). conform/difftest's
// TestAOSGuardianRefusesIffLintError holds the guardian to aoplint on the
// corpora modulo this list.
type Exception struct {
	Rule    string
	Pointer string
	Sub     bool
	Effect  Effect
	Why     string
}

// Effect is what an Exception does.
type Effect int

const (
	// Refuses: a finding of the rule refuses the request, whatever its severity.
	Refuses Effect = iota + 1
	// Answers: an error of the rule does not refuse the request.
	Answers
)

// Exceptions are the guardian's deliberate differences from aoplint, each
// with its reason. Anything else the guardian refuses with a JSON-RPC error
// (-32600, -32601, -32602) before it decides is an error aoplint reports in
// the request; the code is only the presentation of that finding.
var Exceptions = []Exception{
	{Rule: "AOS-WRAP-002", Pointer: "/params/message", Effect: Refuses,
		Why: "a JSON-RPC batch of MCP messages (MCP 2025-03-26 only, aoplint's info) is refused -32602: the guardian's policy judges one tools/call, and a batch would carry tool calls past it"},
}

// Except is the entry of Exceptions that covers d (nil for none).
func Except(d lint.Diagnostic) *Exception {
	for i := range Exceptions {
		x := &Exceptions[i]
		if x.Rule == d.Rule && (d.Pointer == x.Pointer || x.Sub && under(d.Pointer, x.Pointer)) {
			return x
		}
	}
	return nil
}

// Counts reports whether aoplint's finding d in one request refuses it: an
// error, bar an exception that answers it, or any finding an exception makes
// refuse, of the rules of one message (AOS-SEQ-* judge a session).
func Counts(d lint.Diagnostic) bool {
	if strings.HasPrefix(d.Rule, "AOS-SEQ-") {
		return false
	}
	x := Except(d)
	if x != nil {
		return x.Effect == Refuses
	}
	return d.Severity == lint.Error
}

func under(ptr, tree string) bool { return ptr == tree || strings.HasPrefix(ptr, tree+"/") }

// related reports whether one JSON Pointer is the other or lies under it.
func related(a, b string) bool { return under(a, b) || under(b, a) }

// Refusing are aoplint's findings in one request body that make the guardian
// refuse it (Counts), in aoplint's order.
func Refusing(body []byte) []lint.Diagnostic {
	var out []lint.Diagnostic
	for _, d := range linter.LintBytes("request.json", body, linter.Options{Protocol: "aos"}).Diagnostics {
		if Counts(d) {
			out = append(out, d)
		}
	}
	return out
}

// refusal is the guardian's answer to a request aoplint refuses (findings, at
// least one): its own answer (hand, at handPtr) when it names a member a
// finding names, else the first finding's, with the JSON-RPC code its member
// takes (§6.1): the envelope's -32600 (-32601 for a method AOS does not
// have), the params' -32602 with the pointer and aoplint's message.
func refusal(id any, method string, known bool, findings []lint.Diagnostic, hand *response, handPtr string) *response {
	if hand != nil {
		for _, d := range findings {
			if related(handPtr, d.Pointer) {
				return hand
			}
		}
	}
	d := findings[0]
	switch {
	case d.Pointer == "/id":
		return errResp(nil, CodeInvalidRequest, "Invalid JSON-RPC Request", d.Message)
	case d.Pointer == "/method" && method != "" && !known:
		return errResp(id, CodeMethodNotFound, "Method not found", d.Message)
	case d.Pointer == "" || d.Pointer == "/jsonrpc" || d.Pointer == "/method" || d.Pointer == "/params":
		return errResp(id, CodeInvalidRequest, "Invalid JSON-RPC Request", d.Message)
	}
	return errResp(id, CodeInvalidParams, "Invalid method parameters", map[string]any{"pointer": d.Pointer, "problem": d.Message})
}
