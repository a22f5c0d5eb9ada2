package all_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/aof"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
)

// completeJSON reports whether an example is one JSON value (an object or an
// array), as `aoplint explain` prints it: what a reader may save and lint.
func completeJSON(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return false
	}
	_, _, err := jsonread.Parse([]byte(t))
	return err == nil
}

// fragment reports whether a lint result is that of a piece of a message (a
// part, a source, a payload member): no protocol recognised, and nothing said
// but that.
func fragment(res linter.FileResult) bool {
	if res.Protocol != "" {
		return false
	}
	for _, d := range res.Diagnostics {
		if d.Rule != "GEN-DETECT-001" {
			return false
		}
	}
	return true
}

// lintExample lints an example where it lives: a line of an AOF data
// directory's events log for the events rule, else a file of its own.
func lintExample(t *testing.T, r *lint.Rule, example string) linter.FileResult {
	t.Helper()
	if r == aof.DirEvents {
		dir := t.TempDir()
		for rel, data := range map[string]string{
			"tasks/done/TASK-2026-02-09-057.md": "---\nid: TASK-2026-02-09-057\nstatus: done\n---\n",
			"events/events.jsonl":               example + "\n",
		} {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := aof.LintDataDir(dir, linter.FileLinter(linter.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		out := linter.FileResult{Protocol: "aof"}
		for _, f := range res {
			out.Diagnostics = append(out.Diagnostics, f.Diagnostics...)
		}
		return out
	}
	return linter.LintBytes("example.json", []byte(example), linter.Options{})
}

// TestRuleExamples: every Good example of a rule that is a message (a complete
// JSON value in which aoplint recognises a protocol) lints clean — no warning,
// no error, infos allowed — and every such Bad example breaks its own rule, as
// `aoplint explain` prints them. (Before: 28 of the 49 complete Good examples
// were not clean, all 15 orchmsg ones by ORCH-BASE-003.)
func TestRuleExamples(t *testing.T) {
	good, bad := 0, 0
	for _, r := range lint.Rules() {
		if completeJSON(r.Good) {
			if res := lintExample(t, r, r.Good); !fragment(res) {
				good++
				for _, d := range res.Diagnostics {
					if d.Severity >= lint.Warning {
						t.Errorf("%s Good example: %s %s: %s\n  %s", r.ID, d.Severity, d.Rule, d.Message, r.Good)
					}
				}
			}
		}
		if completeJSON(r.Bad) {
			res := lintExample(t, r, r.Bad)
			if fragment(res) && r.ID != "GEN-DETECT-001" {
				continue
			}
			bad++
			var got []string
			for _, d := range res.Diagnostics {
				got = append(got, d.Rule)
			}
			if !slices.Contains(got, r.ID) {
				t.Errorf("%s Bad example does not break its rule (got %v):\n  %s", r.ID, got, r.Bad)
			}
		}
	}
	if good < 30 || bad < 30 {
		t.Errorf("only %d Good and %d Bad message examples: the test sees too few", good, bad)
	}
	t.Logf("%d Good and %d Bad message examples", good, bad)
}
