package difftest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// TestResponseSize: AOP2-LIMIT-003 and aop2/4/response-size measure a RESPONSE
// alike (§4: 500KB of the compact message, lint/spec/aop2.OverSize), at the
// limit and across it, written compact or with white space.
func TestResponseSize(t *testing.T) {
	const head = `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"RESPONSE","session_id":"S","task_id":"T",` +
		`"agent":{"name":"a","provider":"CODEX","model":"m"},"task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"done"},` +
		`"extensions":{"x_blob":"`
	const tail = `"}}`
	for _, tc := range []struct {
		compact, spaces int // compact size, white space added outside strings
		over            bool
	}{
		{aop2spec.MaxResponseBytes, 0, false},
		{aop2spec.MaxResponseBytes + 1, 0, true},
		{aop2spec.MaxResponseBytes - 10, 1000, false}, // over as written, within compact
		{aop2spec.MaxResponseBytes + 1, 1000, true},
	} {
		blob := strings.Repeat("a", tc.compact-len(head)-len(tail))
		msg := head + blob + tail
		msg = msg[:1] + strings.Repeat(" ", tc.spaces) + msg[1:]
		lintOver := false
		for _, d := range linter.LintBytes("message.json", []byte(msg), linter.Options{Protocol: "aop2"}).Diagnostics {
			if d.Rule == "AOP2-LIMIT-003" && d.Severity == lint.Error {
				lintOver = true
			}
		}
		b := newBuilder()
		b.msg("stdout", "RESPONSE", msg)
		o := conform.LookupCheck("aop2/4/response-size").Run(b.s)
		if checkOver := o.Verdict == conform.Fail; lintOver != tc.over || checkOver != tc.over {
			t.Errorf("compact %d + %d spaces: want over=%v; AOP2-LIMIT-003 over=%v, aop2/4/response-size %s (%s)", tc.compact, tc.spaces, tc.over, lintOver, o.Verdict, o.Message)
		}
	}
}

// TestDelegationDepth: AOP2-SEQ-011 and aop2/10/no-delegation count the depth
// of a sub-TASK alike, by parent_task_id from the scenario's TASK (§12: at most
// 3): four sibling sub-TASKs are at depth 1, a chain of four reaches 4.
func TestDelegationDepth(t *testing.T) {
	const root = "TASK-ROOT"
	sub := func(id, parent string) string {
		return `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"TASK",` +
			`"session":{"session_id":"S","created_at":"2026-02-26T12:00:00Z","orchestrator":"o","origin":"o"},` +
			`"target":{"agent_name":"a","provider":"CODEX","model":"m"},` +
			`"task":{"task_id":"` + id + `","parent_task_id":"` + parent + `","objective":"o","category":"TESTING","complexity":"LOW","environment":{"workspace_root":"/w"}}}`
	}
	for name, tc := range map[string]struct {
		tasks [][2]string // id, parent
		over  bool
	}{
		"siblings": {[][2]string{{"A", root}, {"B", root}, {"C", root}, {"D", root}}, false},
		"chain 3":  {[][2]string{{"A", root}, {"B", "A"}, {"C", "B"}}, false},
		"chain 4":  {[][2]string{{"A", root}, {"B", "A"}, {"C", "B"}, {"D", "C"}}, true},
		"unknown":  {[][2]string{{"A", "ELSEWHERE"}, {"B", "A"}, {"C", "B"}, {"D", "C"}}, true},
	} {
		b := newBuilder()
		b.s.Attempts[0].Input = json.RawMessage(`{"task":{"task_id":"` + root + `"}}`)
		stream := `{"aopkit":"transcript/1","seq":1,"from":"orchestrator","protocol":"aop2","msg":` + sub(root, "") + "}\n"
		for i, tk := range tc.tasks {
			msg := sub(tk[0], tk[1])
			b.msg("stdout", "TASK", msg)
			stream += `{"aopkit":"transcript/1","seq":` + fmt.Sprint(i+2) + `,"from":"agent","protocol":"aop2","msg":` + msg + "}\n"
		}
		lintOver := false
		for _, d := range linter.LintBytes("transcript.jsonl", []byte(stream), linter.Options{Protocol: "aop2"}).Diagnostics {
			if d.Rule == "AOP2-SEQ-011" {
				lintOver = true
			}
		}
		o := conform.LookupCheck("aop2/10/no-delegation").Run(b.s)
		if checkOver := o.Verdict == conform.Fail; lintOver != tc.over || checkOver != tc.over {
			t.Errorf("%s: want over=%v; AOP2-SEQ-011 over=%v, aop2/10/no-delegation %s (%s)", name, tc.over, lintOver, o.Verdict, o.Message)
		}
	}
}
