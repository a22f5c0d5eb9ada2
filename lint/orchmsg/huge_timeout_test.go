package orchmsg_test

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestHugeTimeoutsAreLong: an ask-user timeout or a shutdown grace period of
// 10^12 ms or more (past what the checkers turn into a Duration) is a very
// long one, not the default (30 s, the default grace): answering after a
// minute, or signalling after a minute, is within it.
func TestHugeTimeoutsAreLong(t *testing.T) {
	ask := `{"type":"request:ask-user","id":"req-123e4567-e89b-12d3-a456-426614174000","timestamp":"2026-02-04T14:30:00Z","payload":{"question":"Which?","timeout":2000000000000}}
` + ev(1, "2026-02-04T14:31:00Z") + `
{"type":"response:success","id":"res-123e4567-e89b-12d3-a456-426614174000","correlationId":"req-123e4567-e89b-12d3-a456-426614174000","timestamp":"2026-02-04T14:31:30Z","payload":{"answer":"oauth"}}
`
	if got := rules(linter.LintBytes("ask.jsonl", []byte(ask), linter.Options{})); got["ORCH-SEQ-004"] != 0 {
		t.Errorf("ask-user with a 2e12 ms timeout answered after 90 s was reported: %v", got)
	}
	rec := func(seq, at, from, body string) string {
		return `{"aopkit":"transcript/1","seq":` + seq + `,"at":"` + at + `","from":"` + from + `",` + body + `}`
	}
	in := strings.Join([]string{
		rec("1", "2000-01-01T00:00:00.000Z", "orchestrator", `"protocol":"orchmsg","stream":"stdin","msg":{"type":"notify:shutdown","id":"ntf-1","timestamp":"2000-01-01T00:00:00.000Z","payload":{"gracePeriod":2000000000000,"reason":"stop"}}`),
		rec("2", "2000-01-01T00:01:00.000Z", "harness", `"event":"signal","detail":{"signal":"SIGTERM","reason":"x"}`),
	}, "\n") + "\n"
	if got := rules(linter.LintBytes("t.jsonl", []byte(in), linter.Options{})); got["ORCH-SEQ-007"] != 0 {
		t.Errorf("SIGTERM a minute into a 2e12 ms grace period was reported: %v", got)
	}
}
