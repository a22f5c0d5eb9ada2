package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	aofengine "github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/lint/linter"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// aofEngineCorpus are the AOF/1 messages of every corpus: fixtures/aof, the
// reference transcripts, the spec corpus and the upstream reference messages
// (../shared/reference/upstream/aof, when there), a transcript record's
// message or text in place of the record, each as the line the agent wrote
// (a JSON object, or "AOF/1 " and one).
func aofEngineCorpus(t *testing.T) map[string][]byte {
	msgs := map[string][]byte{}
	add := func(where string, b []byte) {
		if rec, ok := decodeRecord(b); ok {
			switch {
			case rec.Text != nil:
				b = []byte(*rec.Text)
			case rec.Msg != nil:
				b = rec.Msg
			default:
				return
			}
		}
		s := bytes.TrimSpace(b)
		if bytes.HasPrefix(s, []byte("{")) || bytes.HasPrefix(s, []byte(spec.Prefix)) {
			msgs[where] = s
		}
	}
	walkCorpus(t, "aof", add)
	return msgs
}

// aofAtLimit are messages whose text sits at an upstream size limit, counted
// in UTF-16 code units (AOF-LIMIT-001), with non-BMP characters (two units,
// one rune each): the router and aoplint counted differently there once.
func aofAtLimit() map[string][]byte {
	const grin = "\U0001F600" // one rune, two UTF-16 code units
	completion := func(notes, summaryRef string, deliverable string) []byte {
		p := map[string]any{"outcome": "done", "summaryRef": summaryRef, "notes": notes, "tests": map[string]int{"total": 1, "passed": 1, "failed": 0}, "deliverables": []string{deliverable}}
		b, _ := json.Marshal(map[string]any{"protocol": "aof", "version": 1, "type": "completion.report", "taskId": "TASK-2026-02-09-057",
			"fromAgent": "swe-backend", "toAgent": "dispatcher", "sentAt": "2026-02-09T21:00:00.000Z", "payload": p})
		return b
	}
	status := func(progress string) []byte {
		b, _ := json.Marshal(map[string]any{"protocol": "aof", "version": 1, "type": "status.update", "taskId": "TASK-2026-02-09-057",
			"fromAgent": "swe-backend", "toAgent": "dispatcher", "sentAt": "2026-02-09T21:00:00.000Z",
			"payload": map[string]any{"taskId": "TASK-2026-02-09-057", "agentId": "swe-backend", "progress": progress}})
		return b
	}
	at := func(units int) string { return strings.Repeat(grin, units/2) + strings.Repeat("a", units%2) }
	out := map[string][]byte{}
	for _, n := range []int{0, 1} {
		out[fmt.Sprintf("notes at %d+%d units", spec.MaxNotes, n)] = completion(at(spec.MaxNotes+n), "outputs/summary.md", "a")
		out[fmt.Sprintf("summaryRef at %d+%d units", spec.MaxSummaryRef, n)] = completion("ok", at(spec.MaxSummaryRef+n), "a")
		out[fmt.Sprintf("deliverable at %d+%d units", spec.MaxItem, n)] = completion("ok", "outputs/summary.md", at(spec.MaxItem+n))
		out[fmt.Sprintf("progress at %d+%d units", spec.MaxProgress, n)] = status(at(spec.MaxProgress + n))
	}
	return out
}

// TestAOFRouterAdmitsIffLintClean: on every AOF/1 message of the corpora, and
// on messages at the size limits in non-BMP text, the reference router
// (conform/engine/aof.Classify, the decision Router.Handle takes before it
// looks a task up) routes a message exactly when aoplint reports no error of
// one message in it, modulo aofengine.Exceptions: a warning an exception makes
// refuse refuses, an error an exception routes does not.
func TestAOFRouterAdmitsIffLintClean(t *testing.T) {
	msgs := aofEngineCorpus(t)
	limits := aofAtLimit()
	for k, v := range limits {
		msgs[k] = v
	}
	routed, refused := 0, 0
	for where, msg := range msgs {
		body, prefixed := spec.TrimPrefix(string(msg))
		typ := ""
		if w, err := spec.DecodeEnvelope([]byte(body)); err == nil {
			if !prefixed && !w.Protocol.Has() && !w.Type.Has() && !w.Payload.Has() {
				continue // no envelope: a run artifact, an inputs/handoff.json
			}
			typ = w.Type.V
		}
		var blocking []string
		for _, d := range linter.LintBytes("message.json", msg, linter.Options{Protocol: "aof"}).Diagnostics {
			if !aofengine.Counts(d) {
				continue
			}
			if x := aofengine.Except(d, typ); x != nil && x.Effect == aofengine.Routes {
				continue
			}
			blocking = append(blocking, d.Rule+" "+d.Pointer+" ("+d.Severity.String()+")")
		}
		kind, reason, detail := aofengine.Classify(msg)
		if (kind == aofengine.KindRouted) != (len(blocking) == 0) {
			t.Errorf("%s: the router says %s %s %s; aoplint's findings that refuse: %q", where, kind, reason, detail, blocking)
		}
		if kind == aofengine.KindRouted {
			routed++
		} else {
			refused++
		}
	}
	for name := range limits {
		kind, _, _ := aofengine.Classify(limits[name])
		if over := strings.Contains(name, "+1 "); over == (kind == aofengine.KindRouted) {
			t.Errorf("%s: the router says %s", name, kind)
		}
	}
	if routed < 50 || refused < 30 {
		t.Errorf("only %d routed and %d refused messages compared", routed, refused)
	}
	t.Logf("%d messages compared: %d routed, %d not", routed+refused, routed, refused)
}
