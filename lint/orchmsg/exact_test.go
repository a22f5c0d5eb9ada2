package orchmsg_test

import (
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestPayloadNumbersExact: progress, priority and durations are judged on the
// number as written, not as a float64: 1e999999 (no float64) is out of 0..1,
// 1.0000000000000001 (1 as a float64) too, 5.0000000000000001 is no integer
// priority, and -1e999999 ms is negative.
func TestPayloadNumbersExact(t *testing.T) {
	progress := func(v string) string {
		return `{"type":"event:progress","id":"evt-1","timestamp":"2026-02-04T14:30:00Z","payload":{"taskId":"task-123","progress":` + v + `,"message":"m"}}`
	}
	priority := func(v string) string {
		return `{"type":"request:submit-task","id":"req-1","timestamp":"2026-02-04T14:30:00Z","payload":{"description":"d","priority":` + v + `}}`
	}
	grace := func(v string) string {
		return `{"type":"notify:shutdown","id":"ntf-9","timestamp":"2026-02-04T14:30:00Z","payload":{"gracePeriod":` + v + `,"reason":"stop"}}`
	}
	for _, tc := range []struct {
		msg, rule string
		want      bool
	}{
		{progress("1e999999"), "ORCH-PAYLOAD-001", true},
		{progress("1.0000000000000001"), "ORCH-PAYLOAD-001", true},
		{progress("-1e-999999"), "ORCH-PAYLOAD-001", true},
		{progress("1.0"), "ORCH-PAYLOAD-001", false},
		{progress("75"), "ORCH-PAYLOAD-001", true},
		{priority("5.0000000000000001"), "ORCH-PAYLOAD-002", true},
		{priority("1e999999"), "ORCH-PAYLOAD-002", true},
		{priority("3.0"), "ORCH-PAYLOAD-002", false},
		{priority("0.5e1"), "ORCH-PAYLOAD-002", false},
		{grace("-1e999999"), "ORCH-PAYLOAD-004", true},
		{grace("999.9999999999999999"), "ORCH-PAYLOAD-004", true},
		{grace("30000"), "ORCH-PAYLOAD-004", false},
	} {
		got := rules(linter.LintBytes("m.json", []byte(tc.msg), linter.Options{}))[tc.rule] > 0
		if got != tc.want {
			t.Errorf("%s: %s reported %v, want %v", tc.msg, tc.rule, got, tc.want)
		}
	}
}
