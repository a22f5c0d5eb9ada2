package aos_test

import (
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestExecutedEmptyIDIsUnknown: an executed record with an empty executionId
// names no tool call. lookupTool's search for a modified tool call must not
// take "" for the modifiedExec of every unmodified call (it then charged the
// denied call e1 with having run: AOS-SEQ-007 instead of AOS-SEQ-004).
func TestExecutedEmptyIDIsUnknown(t *testing.T) {
	t.Parallel()
	in := `{"jsonrpc":"2.0","id":"r1","method":"steps/toolCallRequest","params":{"context":{"session":{"id":"s1"},"turnId":"t1","stepId":"st1"},"toolCallRequest":{"executionId":"e1","toolId":"send_email","inputs":[]}}}
{"jsonrpc":"2.0","id":"r1","result":{"decision":"deny","message":"no"}}
{"executed":{"executionId":"","name":"x","arguments":{}}}
`
	got := map[string]int{}
	for _, d := range linter.LintBytes("t.jsonl", []byte(in), linter.Options{}).Diagnostics {
		got[d.Rule]++
	}
	if got["AOS-SEQ-007"] != 0 {
		t.Errorf("AOS-SEQ-007 for an executed record with executionId \"\": it names no tool call (findings %v)", got)
	}
	if got["AOS-SEQ-004"] != 1 {
		t.Errorf("want one AOS-SEQ-004 (unknown execution) for executionId \"\", got %v", got)
	}
}
