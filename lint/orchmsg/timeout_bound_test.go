package orchmsg_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/orchmsg"
)

// pastTheBound is MaxTracked+1 requests, then a response to each in order, then
// an event a minute later (past their deadlines): the first request is dropped
// from the windows before its response comes.
func pastTheBound() []byte {
	var b strings.Builder
	n := orchmsg.MaxTracked + 1
	for i := range n {
		fmt.Fprintf(&b, `{"type":"request:get-task","id":"req-123e4567-e89b-12d3-a456-%012d","timestamp":"2026-02-04T14:30:00Z","payload":{"taskId":"t1"}}`+"\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, `{"type":"response:success","id":"res-123e4567-e89b-12d3-a456-%012d","correlationId":"req-123e4567-e89b-12d3-a456-%012d","timestamp":"2026-02-04T14:30:01Z","payload":{"task":{}}}`+"\n", i, i)
	}
	b.WriteString(ev(1, "2026-02-04T14:31:00Z") + "\n")
	return []byte(b.String())
}

// TestForgottenRequestNotReported: past MaxTracked requests the oldest is no
// longer tracked (the info notes say ORCH-SEQ-001 and ORCH-SEQ-004 "check only
// the most recent"). Its response, which then finds no entry, names an earlier
// request all the same (no ORCH-SEQ-001 error), and the request must not be
// reported as unanswered when its deadline passes (ORCH-SEQ-004).
func TestForgottenRequestNotReported(t *testing.T) {
	for _, d := range linter.LintBytes("t.jsonl", pastTheBound(), linter.Options{}).Diagnostics {
		if (d.Rule == "ORCH-SEQ-001" || d.Rule == "ORCH-SEQ-004") && d.Severity != lint.Info {
			t.Errorf("%s %d: %s", d.Rule, d.Line, d.Message)
		}
	}
}
