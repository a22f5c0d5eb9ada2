package orchmsg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/orchmsg"
)

// TestCorrelationPastTheBoundNotReported: past MaxTracked requests the oldest
// is no longer tracked (the info note: ORCH-SEQ-001 "checks only the most
// recent"); a response to it names an earlier request all the same, and must
// not be reported as naming none.
func TestCorrelationPastTheBoundNotReported(t *testing.T) {
	var b strings.Builder
	n := orchmsg.MaxTracked + 1
	for i := range n {
		fmt.Fprintf(&b, `{"type":"request:get-task","id":"req-123e4567-e89b-12d3-a456-%012d","timestamp":"2026-02-04T14:30:00Z","payload":{"taskId":"t1"}}`+"\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, `{"type":"response:success","id":"res-123e4567-e89b-12d3-a456-%012d","correlationId":"req-123e4567-e89b-12d3-a456-%012d","timestamp":"2026-02-04T14:30:01Z","payload":{"task":{}}}`+"\n", i, i)
	}
	for _, d := range linter.LintBytes("t.jsonl", []byte(b.String()), linter.Options{}).Diagnostics {
		if d.Rule == "ORCH-SEQ-001" && d.Severity != lint.Info {
			t.Errorf("%d: %s", d.Line, d.Message)
		}
	}
}
