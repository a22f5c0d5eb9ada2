package difftest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	aop2engine "github.com/aopkit/aopkit/conform/engine/aop2"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// aop2EngineCorpus are the TASK and RESPONSE envelopes of every corpus:
// fixtures/aop2, the reference transcripts (what the agent and the engine
// wrote on the pipes; the audit files are the engine's), the spec corpus and
// the upstream reference messages (../shared/reference/upstream/aop2, when
// there), by message_type.
func aop2EngineCorpus(t *testing.T) map[string][]byte {
	msgs := map[string][]byte{}
	add := func(where string, b []byte) {
		if rec, ok := decodeRecord(b); ok {
			if strings.HasPrefix(rec.Stream, "file:") {
				return
			}
			b = rec.Msg
		}
		var head struct {
			MessageType string `json:"message_type"`
		}
		if json.Unmarshal(b, &head) == nil && (head.MessageType == "TASK" || head.MessageType == "RESPONSE") {
			msgs[where] = bytes.TrimSpace(b)
		}
	}
	walkCorpus(t, "aop2", add)
	return msgs
}

// TestAOP2EngineAdmitsIffLintClean: on every TASK and RESPONSE of the
// corpora, the reference orchestrator dispatches a TASK (AdmitsTask, the
// decision of run) and takes a RESPONSE (AdmitsResponse, the decision of
// handleResponse on a TASK the RESPONSE matches) exactly when aoplint reports
// no error of one message in it, modulo aop2engine.Exceptions: a warning an
// exception makes refuse refuses, an error an exception tolerates does not,
// an error an exception words under its own code (the limits) refuses.
func TestAOP2EngineAdmitsIffLintClean(t *testing.T) {
	admitted, refused := map[string]int{}, map[string]int{}
	for where, msg := range aop2EngineCorpus(t) {
		var head struct {
			MessageType string `json:"message_type"`
		}
		json.Unmarshal(msg, &head)
		kind := head.MessageType
		var blocking []string
		for _, d := range linter.LintBytes("message.json", msg, linter.Options{Protocol: "aop2"}).Diagnostics {
			if strings.HasPrefix(d.Rule, "AOP2-SEQ-") {
				continue
			}
			x := aop2engine.Except(d, kind)
			refuses := d.Severity == lint.Error && (x == nil || x.Effect != aop2engine.Tolerated) ||
				d.Severity == lint.Warning && x != nil && x.Effect == aop2engine.Refuses
			if refuses {
				blocking = append(blocking, d.Rule+" "+d.Pointer+" ("+d.Severity.String()+")")
			}
		}
		ok := aop2engine.AdmitsTask(msg)
		if kind == "RESPONSE" {
			ok = aop2engine.AdmitsResponse(msg)
		}
		if ok != (len(blocking) == 0) {
			t.Errorf("%s: the engine admits the %s: %v; aoplint's findings that refuse: %q", where, kind, ok, blocking)
		}
		if ok {
			admitted[kind]++
		} else {
			refused[kind]++
		}
	}
	for _, kind := range []string{"TASK", "RESPONSE"} {
		if admitted[kind] < 20 || refused[kind] < 5 {
			t.Errorf("only %d admitted and %d refused %ss compared", admitted[kind], refused[kind], kind)
		}
	}
	t.Logf("TASK: %d admitted, %d refused; RESPONSE: %d admitted, %d refused", admitted["TASK"], refused["TASK"], admitted["RESPONSE"], refused["RESPONSE"])
}
