package orchmsg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/orchmsg"
)

// TestTimeoutForgottenNotReported: past MaxTracked open requests the oldest is
// no longer tracked (the info note says ORCH-SEQ-004 "checks only the most
// recent"): its answer, which then finds no open entry, must not leave it to
// be reported as unanswered when its deadline passes.
func TestTimeoutForgottenNotReported(t *testing.T) {
	var b strings.Builder
	n := orchmsg.MaxTracked + 1
	for i := range n {
		fmt.Fprintf(&b, `{"type":"request:get-task","id":"req-123e4567-e89b-12d3-a456-%012d","timestamp":"2026-02-04T14:30:00Z","payload":{"taskId":"t1"}}`+"\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, `{"type":"response:success","id":"res-123e4567-e89b-12d3-a456-%012d","correlationId":"req-123e4567-e89b-12d3-a456-%012d","timestamp":"2026-02-04T14:30:01Z","payload":{"task":{}}}`+"\n", i, i)
	}
	b.WriteString(ev(1, "2026-02-04T14:31:00Z") + "\n")
	res := linter.LintBytes("t.jsonl", []byte(b.String()), linter.Options{})
	for _, d := range res.Diagnostics {
		if d.Rule == "ORCH-SEQ-004" && d.Severity != lint.Info {
			t.Errorf("%d: %s", d.Line, d.Message)
		}
	}
}
