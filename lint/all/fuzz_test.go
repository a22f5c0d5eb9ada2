package all_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/suppress"
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
		r, _ := linter.LintStream("fuzz.jsonl", bytes.NewReader(data), linter.Options{Workers: 1, Marker: suppress.Member})
		check(r)
		// The lines kept for inline suppressions (found by the parse's watched
		// key) give the directives a search of every line gives.
		if r.Marked != nil {
			var got, want []*suppress.Directive
			for _, l := range r.Marked.Lines {
				got = append(got, suppress.Line(l.Text, l.Line)...)
			}
			for i, l := range bytes.SplitAfter(data, []byte("\n")) {
				if bytes.Contains(l, []byte(suppress.Member)) {
					want = append(want, suppress.Line(l, i+1)...)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d directives from the kept lines, %d from every line\ninput: %q", len(got), len(want), data)
			}
			for i := range got {
				if g, w := *got[i], *want[i]; g.Line != w.Line || g.Column != w.Column || g.Pointer != w.Pointer || strings.Join(g.Rules, ",") != strings.Join(w.Rules, ",") {
					t.Fatalf("directive %d: %+v, want %+v\ninput: %q", i, g, w, data)
				}
			}
		}
		for _, p := range lint.Protocols() {
			check(linter.LintBytes("fuzz.json", data, linter.Options{Protocol: p.ID}))
		}
	})
}
