package all_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/internal/ruledoc"
	"github.com/aopkit/aopkit/lint/linter"
)

var update = flag.Bool("u", false, "rewrite the golden files of fixtures/")

const fixtures = "../../fixtures"

// golden renders diagnostics one per line, with paths relative to fixtures/.
func golden(res []linter.FileResult) string {
	var b strings.Builder
	for _, r := range res {
		for _, d := range r.Diagnostics {
			rel, _ := filepath.Rel(fixtures, d.Path)
			if d.Path == "" {
				rel, _ = filepath.Rel(fixtures, r.Path)
			}
			fmt.Fprintf(&b, "%s:%d:%d: %s: %s [%s]", filepath.ToSlash(rel), d.Line, d.Column, d.Severity, d.Message, d.Rule)
			if d.Pointer != "" {
				fmt.Fprintf(&b, " at %s", d.Pointer)
			}
			b.WriteString("\n")
			for _, rel := range d.Related {
				fmt.Fprintf(&b, "\trelated line %d: %s\n", rel.Line, rel.Message)
			}
		}
	}
	return b.String()
}

// inputs lists the fixtures of a corpus directory: files (not goldens, not docs) and
// data directories (a directory some directory linter claims).
func inputs(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".golden") || strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() {
			if linter.DirLinterFor(filepath.Join(dir, name)) == nil {
				continue // a helper directory, such as details files of aop-output reports
			}
		}
		out = append(out, filepath.Join(dir, name))
	}
	sort.Strings(out)
	return out
}

func lintInput(t *testing.T, path string, opts linter.Options) []linter.FileResult {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.IsDir() {
		d := linter.DirLinterFor(path)
		res, err := d.Lint(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	r, err := linter.LintFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return []linter.FileResult{r}
}

// optionsFor reads per-fixture options from the file name: "...tasktype-analysis..."
// selects --task-type analysis.
func optionsFor(path string) linter.Options {
	var o linter.Options
	base := filepath.Base(path)
	if i := strings.Index(base, "tasktype-"); i >= 0 {
		rest := base[i+len("tasktype-"):]
		if j := strings.IndexAny(rest, "._"); j >= 0 {
			rest = rest[:j]
		}
		o.TaskType = rest
	}
	return o
}

// TestFixtures lints every fixture: valid ones must have no error and no warning;
// invalid ones must match their golden file (go test ./lint/all -u rewrites them).
func TestFixtures(t *testing.T) {
	protos, _ := os.ReadDir(fixtures)
	for _, p := range protos {
		if !p.IsDir() || lint.LookupProtocol(p.Name()) == nil {
			continue
		}
		proto := p.Name()
		for _, f := range inputs(t, filepath.Join(fixtures, proto, "valid")) {
			f := f
			t.Run(proto+"/valid/"+filepath.Base(f), func(t *testing.T) {
				res := lintInput(t, f, optionsFor(f))
				for _, r := range res {
					for _, d := range r.Diagnostics {
						if d.Severity >= lint.Warning {
							t.Errorf("valid fixture has a finding:\n%s", golden([]linter.FileResult{r}))
							break
						}
					}
				}
				// A valid fixture may keep its infos (an upstream dialect named,
				// a revision not checked) in a golden file, compared like the
				// invalid ones'; -u writes one only where there is an info.
				gf := f + ".golden"
				got := golden(res)
				want, err := os.ReadFile(gf)
				switch {
				case *update && got != "" && strings.Contains(filepath.Base(f), "_info"):
					if err := os.WriteFile(gf, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				case err == nil && got != string(want):
					t.Errorf("diagnostics differ from %s (run go test ./lint/all -u to accept):\n--- got\n%s--- want\n%s", gf, got, want)
				}
			})
		}
		for _, f := range inputs(t, filepath.Join(fixtures, proto, "invalid")) {
			f := f
			t.Run(proto+"/invalid/"+filepath.Base(f), func(t *testing.T) {
				got := golden(lintInput(t, f, optionsFor(f)))
				gf := f + ".golden"
				if *update {
					if err := os.WriteFile(gf, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(gf)
				if err != nil {
					t.Fatalf("no golden file (run go test ./lint/all -u): %v", err)
				}
				if got != string(want) {
					t.Errorf("diagnostics differ from %s (run go test ./lint/all -u to accept):\n--- got\n%s--- want\n%s", gf, got, want)
				}
				if !strings.Contains(got, ": error: ") && !strings.Contains(got, ": warning: ") {
					t.Errorf("invalid fixture has no error or warning:\n%s", got)
				}
			})
		}
	}
}

// TestEveryRuleHasAFailingFixture: each rule of a protocol shows up in at least one
// invalid fixture's golden file, so no rule is untested.
func TestEveryRuleHasAFailingFixture(t *testing.T) {
	seen := map[string]bool{}
	filepath.WalkDir(fixtures, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".golden") {
			data, _ := os.ReadFile(path)
			for _, line := range strings.Split(string(data), "\n") {
				if i := strings.LastIndex(line, " ["); i >= 0 {
					if j := strings.Index(line[i:], "]"); j > 0 {
						seen[line[i+2:i+j]] = true
					}
				}
			}
		}
		return nil
	})
	for _, r := range lint.Rules() {
		if r.Protocol == "" || r.Retired {
			continue
		}
		if !seen[r.ID] {
			t.Errorf("rule %s (%s) has no invalid fixture under fixtures/%s/invalid whose golden shows it", r.ID, r.Title, r.Protocol)
		}
	}
}

// TestRegistry: every rule has a unique well-formed ID, a title, a doc, a spec
// reference, bad and good examples, and something to run.
func TestRegistry(t *testing.T) {
	for _, r := range lint.Rules() {
		if r.Title == "" || r.Doc == "" || r.Spec == "" || r.Bad == "" || r.Good == "" {
			t.Errorf("rule %s lacks a title, doc, spec, bad or good example", r.ID)
		}
		if r.Protocol != "" && r.Run == nil && r.NewChecker == nil && !r.Retired {
			t.Errorf("rule %s has nothing to run", r.ID)
		}
		if r.Protocol != "" && lint.LookupProtocol(r.Protocol) == nil {
			t.Errorf("rule %s names unknown protocol %q", r.ID, r.Protocol)
		}
		if strings.ToUpper(r.ID) != r.ID || strings.Count(r.ID, "-") < 2 {
			t.Errorf("rule ID %q is not of the form PREFIX-AREA-NNN", r.ID)
		}
	}
	// Every entry of the protocols' rules.yaml documents a rule that exists.
	for _, e := range ruledoc.Unused() {
		t.Errorf("%s: no rule takes this entry", e)
	}
}
