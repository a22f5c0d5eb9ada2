package aos_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/aos"
	"github.com/aopkit/aopkit/lint/linter"
)

// TestUnknownResponsePastTheBoundNotReported: past MaxTracked open requests
// the oldest are forgotten (the info note says later findings about them "may
// be missed"): a response to one of them is not a response to no request, so
// AOS-SEQ-001 must not report it.
func TestUnknownResponsePastTheBoundNotReported(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	n := aos.MaxTracked + 1
	for i := range n {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"steps/toolCallRequest","params":{"context":{"session":{"id":"s"},"turnId":"t","stepId":"st%d"},"toolCallRequest":{"executionId":"e%d","toolId":"x","inputs":[]}}}`+"\n", i, i, i)
	}
	for i := range n {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"decision":"allow"}}`+"\n", i)
	}
	for _, d := range linter.LintBytes("t.jsonl", []byte(b.String()), linter.Options{}).Diagnostics {
		if d.Rule == "AOS-SEQ-001" && d.Severity != lint.Info {
			t.Errorf("%d: %s", d.Line, d.Message)
		}
	}
}
