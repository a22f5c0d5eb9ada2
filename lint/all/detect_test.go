package all_test

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestDetectionNamesTheProblem: inputs found in real repositories that are no
// protocol message get one diagnostic that says what they are, not the rules of
// a protocol they are not, nor "invalid JSON":
//   - a JSON Schema document (its "type" is "object") is no orchmsg message;
//   - a report with lower-case [aop:…] markers is a report the spec's parser
//     would not recognise (its markers are upper case);
//   - a log whose lines start "[agent]" is log output, not a JSON array.
func TestDetectionNamesTheProblem(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		rule     string
		says     string // in the message
	}{
		{"json schema", `{"$schema":"http://json-schema.org/draft-07/schema#","title":"Config","type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
			"GEN-DETECT-001", "JSON Schema"},
		{"json schema without $schema", `{"$id":"https://example.com/task.schema.json","type":"object","properties":{"id":{"type":"string"}}}`,
			"GEN-DETECT-001", "JSON Schema"},
		{"lower-case markers", "[aop:start] 2026-02-05T10:30:00Z\n[aop:task] Search auth code\n\n[aop:summary]\n- Found 3 handlers\n\n[aop:details_file] none\n[aop:status] success\n[aop:end] 2026-02-05T10:31:00Z\n",
			"GEN-DETECT-001", "[AOP:START]"},
		{"agent log", "[agent] starting up\n[agent] reading task\n[agent] done\n",
			"GEN-DETECT-001", "log"},
		{"bracketed log level", "[INFO] 2026-02-05 10:30:00 worker started\n",
			"GEN-DETECT-001", "log"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := linter.LintBytes("in", []byte(tt.in), linter.Options{})
			if len(r.Diagnostics) != 1 {
				t.Fatalf("%d diagnostics, want 1 %s: %+v", len(r.Diagnostics), tt.rule, r.Diagnostics)
			}
			d := r.Diagnostics[0]
			if d.Rule != tt.rule || !strings.Contains(d.Message, tt.says) || strings.Contains(d.Message, "invalid JSON") {
				t.Errorf("%s: %s; want %s saying %q", d.Rule, d.Message, tt.rule, tt.says)
			}
		})
	}
	// Still JSON: an array that is broken JSON is reported as such.
	r := linter.LintBytes("in", []byte(`[{"type":"event:log"}, `), linter.Options{})
	if len(r.Diagnostics) == 0 || r.Diagnostics[0].Rule != "GEN-JSON-001" {
		t.Errorf("a broken JSON array: %+v, want GEN-JSON-001", r.Diagnostics)
	}
}
