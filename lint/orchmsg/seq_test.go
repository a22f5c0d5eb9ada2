package orchmsg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

func ev(i int, ts string) string {
	return fmt.Sprintf(`{"type":"event:log","id":"evt-%08x-0000-4000-8000-000000000000","timestamp":%q,"payload":{"level":"info","message":"m"}}`, i, ts)
}

func rules(res linter.FileResult) map[string]int {
	out := map[string]int{}
	for _, d := range res.Diagnostics {
		out[d.Rule]++
	}
	return out
}

// TestSequenceBounded: a long stream keeps the checkers' state bounded and says
// once that the id window was reached.
func TestSequenceBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 6000; i++ {
		fmt.Fprintf(&b, "%s\n", ev(i, fmt.Sprintf("2026-02-04T%02d:%02d:%02dZ", i/3600, i/60%60, i%60)))
	}
	res := linter.LintBytes("long.jsonl", []byte(b.String()), linter.Options{})
	got := rules(res)
	if got["ORCH-SEQ-003"] != 1 {
		t.Errorf("want one ORCH-SEQ-003 cap note, got %d: %v", got["ORCH-SEQ-003"], res.Diagnostics)
	}
	for _, d := range res.Diagnostics {
		if d.Severity.String() != "info" {
			t.Errorf("unexpected finding: %+v", d)
		}
	}
}

// TestTimeoutAskUser: an ask-user request waits for its own timeout, not 30 s.
func TestTimeoutAskUser(t *testing.T) {
	in := `{"type":"request:ask-user","id":"req-123e4567-e89b-12d3-a456-426614174000","timestamp":"2026-02-04T14:30:00Z","payload":{"question":"Which?","timeout":300000}}
` + ev(1, "2026-02-04T14:31:00Z") + `
{"type":"response:success","id":"res-123e4567-e89b-12d3-a456-426614174000","correlationId":"req-123e4567-e89b-12d3-a456-426614174000","timestamp":"2026-02-04T14:34:00Z","payload":{"answer":"oauth"}}
`
	if got := rules(linter.LintBytes("ask.jsonl", []byte(in), linter.Options{})); got["ORCH-SEQ-004"] != 0 {
		t.Errorf("ask-user answered within its timeout was reported: %v", got)
	}
	late := strings.Replace(in, "14:34:00Z", "14:36:00Z", 1)
	if got := rules(linter.LintBytes("ask.jsonl", []byte(late), linter.Options{})); got["ORCH-SEQ-004"] != 1 {
		t.Errorf("ask-user answered after its timeout: want one ORCH-SEQ-004, got %v", got)
	}
	// A timeout shorter than 30 s is the question's too (lint/spec/orchmsg.RequestDeadline).
	short := strings.Replace(strings.Replace(late, "300000", "10000", 1), "14:31:00Z", "14:30:20Z", 1)
	if got := rules(linter.LintBytes("ask.jsonl", []byte(short), linter.Options{})); got["ORCH-SEQ-004"] != 1 {
		t.Errorf("ask-user unanswered 20 s after a 10 s timeout: want one ORCH-SEQ-004, got %v", got)
	}
}

// TestRateFloodReportedPerSecond: a two-second flood is reported once per second.
func TestRateFloodReportedPerSecond(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 400; i++ {
		ms := i * 5 // 200 messages per second for two seconds
		fmt.Fprintf(&b, "%s\n", ev(i, fmt.Sprintf("2026-02-04T14:30:%02d.%03dZ", ms/1000, ms%1000)))
	}
	got := rules(linter.LintBytes("flood.jsonl", []byte(b.String()), linter.Options{}))
	if got["ORCH-SEQ-005"] != 2 {
		t.Errorf("want 2 ORCH-SEQ-005 reports for a two-second flood, got %v", got)
	}
}

// TestShutdownSignalAfterGrace: a SIGTERM the harness sends when the grace period
// of notify:shutdown is over means the agent ignored the shutdown; one sent
// before (a scenario step) does not.
func TestShutdownSignalAfterGrace(t *testing.T) {
	rec := func(seq int, at, from, body string) string {
		return fmt.Sprintf(`{"aopkit":"transcript/1","seq":%d,"at":%q,"from":%q,%s}`, seq, at, from, body)
	}
	in := strings.Join([]string{
		rec(1, "2000-01-01T00:00:00.000Z", "orchestrator", `"protocol":"orchmsg","stream":"stdin","msg":{"type":"notify:shutdown","id":"ntf-1","timestamp":"2000-01-01T00:00:00.000Z","payload":{"gracePeriod":2000,"reason":"stop"}}`),
		rec(2, "2000-01-01T00:00:02.000Z", "harness", `"event":"signal","detail":{"signal":"SIGTERM","reason":"shutdown grace period over"}`),
		rec(3, "2000-01-01T00:00:02.100Z", "harness", `"event":"agent-exit","detail":{"code":-1,"signal":"SIGTERM"}`),
	}, "\n") + "\n"
	if got := rules(linter.LintBytes("t.jsonl", []byte(in), linter.Options{})); got["ORCH-SEQ-007"] != 1 {
		t.Errorf("SIGTERM at the end of the grace period: want one ORCH-SEQ-007, got %v", got)
	}
	early := strings.Replace(in, "00:00:02.000Z", "00:00:01.000Z", 1)
	if got := rules(linter.LintBytes("t.jsonl", []byte(early), linter.Options{})); got["ORCH-SEQ-007"] != 0 {
		t.Errorf("SIGTERM within the grace period: want no ORCH-SEQ-007, got %v", got)
	}
}
