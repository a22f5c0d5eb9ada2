package aos_test

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestExecutedSharedModifiedExecLatest: two tool calls the guardian modified
// into the same new executionId x. The executed record for x is held to the
// guardian's latest modification into x (the one in force when it ran), not
// to whichever of the two calls the tools table happens to list first.
func TestExecutedSharedModifiedExecLatest(t *testing.T) {
	t.Parallel()
	req := func(id, e, to string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"steps/toolCallRequest","params":{"context":{"session":{"id":"s1"},"turnId":"t1","stepId":"st-` + id + `"},"toolCallRequest":{"executionId":"` + e + `","toolId":"send_email","inputs":[{"name":"to","value":"` + to + `"}]}}}`
	}
	mod := func(id, to string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","result":{"decision":"modify","message":"m","modifiedRequest":{"method":"steps/toolCallRequest","params":{"toolCallRequest":{"executionId":"x","toolId":"send_email","inputs":[{"name":"to","value":"` + to + `"}]}}}}}`
	}
	in := strings.Join([]string{
		req("r1", "e1", "evil@a"), mod("r1", "hr@a"),
		req("r2", "e2", "evil@b"), mod("r2", "boss@b"),
		`{"executed":{"executionId":"x","name":"send_email","arguments":{"to":"boss@b"}}}`,
	}, "\n") + "\n"
	for _, d := range linter.LintBytes("t.jsonl", []byte(in), linter.Options{}).Diagnostics {
		if d.Rule == "AOS-SEQ-008" {
			t.Errorf("%d: %s (the executed call is the latest modification into x, r2's)", d.Line, d.Message)
		}
	}
}
