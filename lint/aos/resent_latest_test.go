package aos_test

import (
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestNullIDErrorAnswersResentRequest: an error response with a null id answers
// the latest request still open (§3.12.2). A request whose id was re-sent while
// open (AOS-SEQ-011) is that latest request, not one sent between the two: the
// open table kept the id at its first send's place, so the error closed r2, and
// r2's own answer was reported as a second one (AOS-SEQ-002) and r1 as never
// answered (AOS-SEQ-003).
func TestNullIDErrorAnswersResentRequest(t *testing.T) {
	t.Parallel()
	in := `{"jsonrpc":"2.0","id":"r1","method":"ping","params":{}}
{"jsonrpc":"2.0","id":"r2","method":"ping","params":{}}
{"jsonrpc":"2.0","id":"r1","method":"ping","params":{}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}
{"jsonrpc":"2.0","id":"r2","result":{}}
`
	got := map[string]int{}
	for _, d := range linter.LintBytes("t.jsonl", []byte(in), linter.Options{}).Diagnostics {
		got[d.Rule]++
	}
	if got["AOS-SEQ-011"] != 1 {
		t.Errorf("want one AOS-SEQ-011 for the re-sent id r1, got %v", got)
	}
	if got["AOS-SEQ-002"] != 0 || got["AOS-SEQ-003"] != 0 {
		t.Errorf("the null-id error answers the re-sent r1 and r2's response answers r2: want no AOS-SEQ-002 or AOS-SEQ-003, got %v", got)
	}
}
