package aos_test

import (
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestPingTimeoutOverflow: a ping timeout too large for a time.Duration of
// milliseconds (2^63 ns: over 292 years) is a timeout no answer passes; it
// must not wrap around to a tiny one (18446744073710 ms wrapped to 448µs and
// flagged an answer after 100 ms as late).
func TestPingTimeoutOverflow(t *testing.T) {
	t.Parallel()
	in := `{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T10:00:00.000Z","from":"agent","msg":{"jsonrpc":"2.0","id":1,"method":"ping","params":{"timeout":18446744073710,"version":"0.1.0","timestamp":"2026-01-01T10:00:00Z"}}}
{"aopkit":"transcript/1","seq":2,"at":"2026-01-01T10:00:00.100Z","from":"orchestrator","msg":{"jsonrpc":"2.0","id":1,"result":{"status":"connected","version":"0.1.0","timestamp":"2026-01-01T10:00:00Z"}}}
`
	for _, d := range linter.LintBytes("t.jsonl", []byte(in), linter.Options{}).Diagnostics {
		if d.Rule == "AOS-SEQ-018" {
			t.Errorf("%d: %s", d.Line, d.Message)
		}
	}
}
