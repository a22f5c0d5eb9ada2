package difftest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	orchengine "github.com/aopkit/aopkit/conform/engine/orchmsg"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// orchmsgRequests are the requests (a message of a request:* type with an id
// that is a non-empty string: one the engine answers) of every corpus:
// fixtures/orchmsg, the reference transcripts, the spec corpus and the
// upstream reference messages (../shared/reference/upstream/orchmsg, when
// there), a transcript record's message in place of the record.
func orchmsgRequests(t *testing.T) map[string][]byte {
	msgs := map[string][]byte{}
	add := func(where string, b []byte) {
		if rec, ok := decodeRecord(b); ok {
			b = rec.Msg
		}
		var head struct {
			Type string `json:"type"`
			ID   any    `json:"id"`
		}
		if json.Unmarshal(b, &head) != nil || !strings.HasPrefix(head.Type, "request:") {
			return
		}
		if id, ok := head.ID.(string); ok && id != "" {
			msgs[where] = bytes.TrimSpace(b)
		}
	}
	walkCorpus(t, "orchmsg", add)
	return msgs
}

// orchmsgEdgeRequests are requests at the edges of the payload rules: what
// aoplint only warns about (a priority outside 1..5, a timeout under a second
// or 0) and the errors next to them.
var orchmsgEdgeRequests = []string{
	`"request:submit-task","payload":{"type":"implementation","name":"x","priority":9}`,
	`"request:submit-task","payload":{"type":"implementation","name":"x","priority":0}`,
	`"request:submit-task","payload":{"type":"implementation","name":"x","priority":1e300}`,
	`"request:submit-task","payload":{"type":"implementation","name":"x","priority":2.5}`,
	`"request:submit-task","payload":{"type":"implementation","name":"x","priority":"2"}`,
	`"request:submit-task","payload":{"type":"implementation","name":"","dependencies":[5]}`,
	`"request:submit-task","payload":{"type":"implementation","name":"x","requiredRole":"boss"}`,
	`"request:ask-user","payload":{"question":"q","timeout":0}`,
	`"request:ask-user","payload":{"question":"q","timeout":0.5}`,
	`"request:ask-user","payload":{"question":"q","timeout":-5}`,
	`"request:ask-user","payload":{"question":"q","options":[{"label":"a"}]}`,
	`"request:ask-user","payload":{"question":"   "}`,
	`"request:ask-user","payload":{}`,
	`"request:get-task"`,
	`"request:get-task","payload":{"taskId":""}`,
	`"request:get-task","payload":[]`,
	`"request:query-tasks","payload":{"limit":1.5}`,
	`"request:query-tasks","payload":{"limit":1e300}`,
	`"request:query-tasks","payload":{"status":"failed"}`,
	`"request:query-agents","payload":{"role":5}`,
	`"request:query-agents","payload":{"status":"weird"}`,
	`"request:cancel-task","payload":{"taskId":"task-1"}`,
}

// TestOrchmsgEngineRefusesIffLintError: on every request of the corpora, and
// on requests at the edges of the payload rules, the reference orchestrator
// (conform/engine/orchmsg.Answer, the answer Drive sends) refuses a request
// (INVALID_REQUEST, INVALID_MESSAGE_TYPE) exactly when aoplint reports an
// error of one message in it, modulo orchengine.Exceptions; a warning never
// refuses one.
func TestOrchmsgEngineRefusesIffLintError(t *testing.T) {
	msgs := orchmsgRequests(t)
	for i, body := range orchmsgEdgeRequests {
		msgs["edge "+strconv.Itoa(i)] = []byte(`{"type":` + body + `,"id":"req-3f2a9c1e-7b4d-4e2a-9c1f-0d8e6b5a4c3d","timestamp":"2026-02-04T14:30:00Z"}`)
	}
	excepted := func(d lint.Diagnostic) bool {
		for _, x := range orchengine.Exceptions {
			if (x.Rule == "*" || x.Rule == d.Rule) && (d.Pointer == x.Under || strings.HasPrefix(d.Pointer, x.Under+"/")) {
				return true
			}
		}
		return false
	}
	served, refused := 0, 0
	for where, msg := range msgs {
		var blocking []string
		for _, d := range linter.LintBytes("message.json", msg, linter.Options{Protocol: "orchmsg"}).Diagnostics {
			if d.Severity == lint.Error && !strings.HasPrefix(d.Rule, "ORCH-SEQ-") && !excepted(d) {
				blocking = append(blocking, d.Rule+" "+d.Pointer)
			}
		}
		typ, code := orchengine.Answer(msg)
		isRefused := code == "INVALID_REQUEST" || code == "INVALID_MESSAGE_TYPE"
		if isRefused != (len(blocking) > 0) {
			t.Errorf("%s: the engine answers %s %s; aoplint's errors that refuse: %q\n%s", where, typ, code, blocking, msg)
		}
		if isRefused {
			refused++
		} else {
			served++
		}
	}
	if served < 20 || refused < 15 {
		t.Errorf("only %d served and %d refused requests compared", served, refused)
	}
	t.Logf("%d requests compared: %d served, %d refused", served+refused, served, refused)
}
