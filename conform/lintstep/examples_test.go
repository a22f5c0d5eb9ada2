package lintstep_test

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks"
	_ "github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
)

// exampleMessage lints a check's example when it is a message: one complete
// JSON value in which aoplint recognises a protocol (ok false for prose, a
// fragment or an elided example).
func exampleMessage(s string) (res linter.FileResult, ok bool) {
	t := strings.TrimSpace(s)
	if t == "" || t[0] != '{' {
		return res, false
	}
	if _, _, err := jsonread.Parse([]byte(t)); err != nil {
		return res, false
	}
	res = linter.LintBytes("example.json", []byte(t), linter.Options{})
	return res, res.Protocol != ""
}

// TestCheckExamples: every Good example of a check that is a message lints
// clean (no warning, no error), and every such Bad example of a check judged by
// lint rules breaks one of them, as `aopconform explain` prints them.
func TestCheckExamples(t *testing.T) {
	good := 0
	for _, c := range conform.Checks("") {
		if res, ok := exampleMessage(c.Good); ok {
			good++
			for _, d := range res.Diagnostics {
				if d.Severity >= lint.Warning {
					t.Errorf("%s Good example: %s %s: %s\n  %s", c.ID, d.Severity, d.Rule, d.Message, c.Good)
				}
			}
		}
		if res, ok := exampleMessage(c.Bad); ok && len(c.Lint) > 0 && c.Lint[0] != "*" {
			found := false
			for _, d := range res.Diagnostics {
				for _, p := range c.Lint {
					found = found || (d.Severity >= lint.Warning && strings.HasPrefix(d.Rule, p))
				}
			}
			if !found {
				t.Errorf("%s Bad example breaks none of its rules %v:\n  %s", c.ID, c.Lint, c.Bad)
			}
		}
	}
	t.Logf("%d Good message examples", good)
}
