package orchmsg_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/orchmsg"
)

// FuzzDetectOrchmsg: detection and every orchmsg rule (single-message and sequence)
// on arbitrary input, detected and forced, never panic (a rule panic would surface
// as an "internal error" diagnostic) and never hang.
func FuzzDetectOrchmsg(f *testing.F) {
	files, _ := filepath.Glob("../../fixtures/orchmsg/*/*")
	for _, file := range files {
		if strings.HasSuffix(file, ".golden") {
			continue
		}
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"type":"request:ask-user","id":"r","timestamp":"2026-02-04T14:30:00Z","payload":{"timeout":1e300}}` + "\n" + `{"type":"response:success","id":"s","correlationId":"r","timestamp":"9999-12-31T23:59:59Z"}`))
	f.Add([]byte(`{"type":"notify:shutdown","id":"n","timestamp":"2026-02-04T14:30:00Z","payload":{"gracePeriod":-1}}` + "\n" + `{"type":"event:log","id":"e","timestamp":"0000-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if root, _, err := jsonread.Parse(data); err == nil {
			orchmsg.Detect(root, "")
		}
		for _, proto := range []string{"", orchmsg.ID} {
			res := linter.LintBytes("fuzz.jsonl", data, linter.Options{Protocol: proto})
			for _, d := range res.Diagnostics {
				if strings.Contains(d.Message, "internal error") {
					t.Fatalf("protocol %q: %s [%s]", proto, d.Message, d.Rule)
				}
			}
		}
	})
}
