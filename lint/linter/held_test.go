package linter

import (
	"encoding/json"
	"testing"

	"github.com/aopkit/aopkit/lint"
)

// A held harness or control record, rebuilt for checkers that start later, is
// the message the checkers that were live saw: same kind, context, position and
// tree.
func TestHeldRecordRebuilds(t *testing.T) {
	lines := []string{
		`{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T00:00:00.5Z","from":"harness","session":"s1","event":"agent-start","detail":{"agentId":"a-1"}}`,
		`{"aopkit":"transcript/1","seq":2,"at":"2026-01-01T00:00:01Z","from":"orchestrator","session":"s1","stream":"control","protocol":"aop-output","msg":{"task":"t","task_type":"review"}}`,
		`{"aopkit":"transcript/1","seq":3,"at":"2026-01-01T00:00:02Z","from":"orchestrator","session":"s2","protocol":"aop2","detail":{"probe":"x"},"msg":{"message_type":"TASK"}}`,
		`{"aopkit":"transcript/1","seq":4,"at":"2026-01-01T00:00:03Z","from":"agent","session":"s2","stream":"stdout","text":"{\"aopkit\":\"transcript/1\",\"seq\":9,\"at\":\"2026-01-01T00:00:03Z\",\"from\":\"harness\",\"event\":\"kill\"}"}`,
	}
	view := func(m *lint.Message) string {
		l, c := m.Pos.Position(0)
		data, err := json.Marshal(map[string]any{"kind": m.Kind, "protocol": m.Protocol, "from": m.From, "session": m.Session,
			"stream": m.Stream, "at": m.At, "index": m.Index, "line": l, "col": c, "root": m.Root.Interface()})
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	for _, whole := range []bool{false, true} {
		s := newStream("t.jsonl", Options{})
		b := newMemBuilder(newUnitMem(), s.path, &s.opts, whole)
		for i, line := range lines {
			u := b.build(i+3, []byte(line), i+7, 1)
			if u.harness == nil {
				t.Fatalf("line %d: no harness record", i)
			}
			want := view(u.harness)
			got := s.rebuild(heldRecord{src: u.unit.src, line: u.unit.line, col: u.unit.col, index: u.harness.Index, whole: u.unit.whole})
			if got == nil || view(got) != want {
				t.Fatalf("line %d (whole %v) rebuilt:\n%v\nwant\n%s", i, whole, got, want)
			}
			b.mem.reset()
		}
	}
}
