package all_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// FuzzLint drives every protocol's detector and rules with arbitrary input, as a
// whole file and as a stream, detected and forced: nothing may panic (a rule's
// panic becomes an "internal error" diagnostic, which fails here too).
func FuzzLint(f *testing.F) {
	filepath.WalkDir(fixtures, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) != ".golden" && filepath.Ext(path) != ".md" {
			if data, err := os.ReadFile(path); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
		return nil
	})
	f.Add([]byte("AOF/1 {\"protocol\":\"aof\"}\nnot json\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(r linter.FileResult) {
			for _, d := range r.Diagnostics {
				if bytes.Contains([]byte(d.Message), []byte("internal error in rule")) {
					t.Fatalf("%s: %s\ninput: %q", d.Rule, d.Message, data)
				}
			}
		}
		check(linter.LintBytes("fuzz.json", data, linter.Options{}))
		r, _ := linter.LintStream("fuzz.jsonl", bytes.NewReader(data), linter.Options{Workers: 1})
		check(r)
		for _, p := range lint.Protocols() {
			check(linter.LintBytes("fuzz.json", data, linter.Options{Protocol: p.ID}))
		}
	})
}
