package orchmsg

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all" // registers aoplint's protocols for linter.LintBytes
	"github.com/aopkit/aopkit/lint/linter"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// Exception is one deliberate difference between what the engine does with a
// request and what aoplint finds in it: an error of Rule ("*": any rule) at the
// member Under or under it does not refuse the request; the engine answers it.
// conform/difftest's TestOrchmsgEngineRefusesIffLintError holds the engine to
// aoplint on the corpora modulo this list.
type Exception struct {
	Rule  string
	Under string
	Why   string
}

// envelopeWhy is why the envelope's findings do not refuse a request.
const envelopeWhy = "the envelope is the checks' and aoplint's to judge, not the orchestrator's: the engine answers every request it can correlate " +
	"(§Parsing Strategy routes any JSON with a type; an id that is not a non-empty string gets no answer at all, decision not-answered; " +
	"an agentId other than the agent's is UNAUTHORIZED)"

// Exceptions are the engine's deliberate differences from aoplint, each with
// its reason. Anything else the engine refuses (INVALID_REQUEST,
// INVALID_MESSAGE_TYPE) is an error aoplint reports in the request; a warning
// never refuses one (a priority outside 1..5, ORCH-PAYLOAD-002's warning, is
// served, ranked at the nearest of 1..5).
var Exceptions = []Exception{
	{Rule: "*", Under: "/id", Why: envelopeWhy},
	{Rule: "*", Under: "/timestamp", Why: envelopeWhy},
	{Rule: "*", Under: "/agentId", Why: envelopeWhy},
}

// excepted reports whether an error d does not refuse a request.
func excepted(d lint.Diagnostic) bool {
	for _, x := range Exceptions {
		if (x.Rule == "*" || x.Rule == d.Rule) && under(d.Pointer, x.Under) {
			return true
		}
	}
	return false
}

func under(ptr, tree string) bool { return ptr == tree || strings.HasPrefix(ptr, tree+"/") }

// Refusing are aoplint's findings in one request (a JSON message, as the agent
// wrote it) that make the engine refuse it: errors of the rules of one message
// (not ORCH-SEQ-*, which judge a run), bar Exceptions, in aoplint's order.
func Refusing(line []byte) []lint.Diagnostic {
	var out []lint.Diagnostic
	for _, d := range linter.LintBytes("message.json", line, linter.Options{Protocol: Protocol}).Diagnostics {
		if d.Severity != lint.Error || strings.HasPrefix(d.Rule, "ORCH-SEQ-") || excepted(d) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// Refusal is the engine's answer to a request (typ, as the agent wrote it in
// line) that aoplint finds an error in, before the engine looks at its world:
// code "" when the engine serves it; else INVALID_MESSAGE_TYPE for an unknown
// type (ORCH-TYPE-001) or INVALID_REQUEST, with the engine's wording of the
// first finding (presentation only: the decision is aoplint's).
func Refusal(typ string, line []byte) (code, message string, details map[string]any) {
	ds := Refusing(line)
	if len(ds) == 0 {
		return "", "", nil
	}
	for _, d := range ds {
		if d.Rule == "ORCH-TYPE-001" {
			return "INVALID_MESSAGE_TYPE", fmt.Sprintf("Unknown message type %q", typ), map[string]any{"type": typ}
		}
	}
	message, details = word(typ, line, ds[0])
	return "INVALID_REQUEST", message, details
}

// wording is the engine's text for a refusal by the payload member it names,
// and whether the answer's details carry the member's value.
var wording = map[string]struct {
	msg    string
	detail bool
}{
	"role":         {"Invalid role specified", true},
	"limit":        {"limit must be a positive integer", true},
	"taskId":       {"payload.taskId is required", false},
	"type":         {"payload.type and payload.name are required", false},
	"name":         {"payload.type and payload.name are required", false},
	"requiredRole": {"Invalid requiredRole specified", true},
	"priority":     {"priority must be an integer from 1 to 5", true},
	"question":     {"payload.question is required", false},
	"timeout":      {"timeout must be a positive number of milliseconds", true},
}

// required is what each request type's payload must name, for the wording of
// a request without a payload.
var required = map[string]string{
	"request:get-task":    "taskId",
	"request:submit-task": "type",
	"request:ask-user":    "question",
}

// word is the engine's wording of finding d in a request of type typ: its own
// short text for the member d names (the reference transcripts hold them),
// else aoplint's message and rule.
func word(typ string, line []byte, d lint.Diagnostic) (string, map[string]any) {
	var msg struct {
		Payload json.RawMessage `json:"payload"`
	}
	json.Unmarshal(line, &msg)
	var payload map[string]any
	isObject := json.Unmarshal(msg.Payload, &payload) == nil && payload != nil
	member, _, _ := strings.Cut(strings.TrimPrefix(d.Pointer, "/payload/"), "/")
	switch {
	case d.Pointer == "/payload" && msg.Payload != nil && !isObject:
		return "payload must be an object", nil
	case d.Pointer == "/payload":
		member = required[typ]
	}
	if w, ok := wording[member]; ok && (d.Pointer == "/payload" || under(d.Pointer, "/payload/"+member)) {
		if w.detail {
			return w.msg, map[string]any{member: payload[member]}
		}
		return w.msg, nil
	}
	return d.Message, map[string]any{"rule": d.Rule, "pointer": d.Pointer}
}

// Answer is the engine's answer to line, a request of the agent under test
// (whatever its agentId), in a world of its assigned task task-1 alone, at the
// instant it comes: the answer's type (response:success or response:error;
// "" when none is sent at once) and error code. conform/difftest holds it to
// aoplint.
func Answer(line []byte) (typ, code string) {
	msg, err := spec.Decode(line)
	if err != nil || !msg.Type.OK || spec.Family(msg.Type.V) != spec.Request {
		return "", ""
	}
	sc := &conform.Scenario{ID: "answer", Protocol: Protocol, Task: json.RawMessage(`{"taskId":"task-1"}`)}
	e, _, err := newEngine(harness.New(context.Background(), harness.Config{Scenario: sc}))
	if err != nil {
		return "", ""
	}
	m := e.members[0]
	var sent []byte
	m.sink = func(b []byte) { sent = b }
	id, _ := msg.ID.Get()
	m.handleRequest(id, msg.Type.V, msg, line)
	var answer struct {
		Type  string `json:"type"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(sent, &answer)
	return answer.Type, answer.Error.Code
}
