package aopoutput

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// lintReport runs the report rules over text the way the driver does (single
// rules, then the schema rule without the claimed pointers), so that the rules can
// be tested apart from the driver's input handling.
func lintReport(text string, opts lint.Options) []lint.Diagnostic {
	kind, dialect, conf := DetectText([]byte(text))
	if conf == 0 {
		return nil
	}
	if opts.LintFile == nil {
		opts.LintFile = linter.FileLinter(linter.Options{}) // as the driver lends it
	}
	m := &lint.Message{Path: "report.txt", Protocol: ID, Kind: kind, Dialect: dialect, Raw: []byte(text),
		Pos: lint.NewLineIndex([]byte(text), 1, 1), Opts: &opts}
	var out []lint.Diagnostic
	var claimed []string
	var schemaRules []*lint.Rule
	for _, r := range lint.Rules() {
		if r.Protocol != ID || !r.AppliesTo(ID, kind) || r.NewChecker != nil {
			continue
		}
		if r.Schema {
			schemaRules = append(schemaRules, r)
			continue
		}
		p := lint.NewPass(r, m)
		r.Run(p)
		out = append(out, p.Diagnostics()...)
		claimed = append(claimed, p.Claimed()...)
	}
	for _, r := range schemaRules {
		p := lint.NewPass(r, m)
		r.Run(p)
		for _, d := range p.Diagnostics() {
			if !lint.IsClaimed(claimed, d.Pointer) {
				out = append(out, d)
			}
		}
	}
	lint.SortDiagnostics(out)
	return out
}

func render(ds []lint.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%d:%d: %s: %s [%s]", d.Line, d.Column, d.Severity, d.Message, d.Rule)
		if d.Pointer != "" {
			fmt.Fprintf(&b, " at %s", d.Pointer)
		}
		b.WriteString("\n")
		for _, r := range d.Related {
			fmt.Fprintf(&b, "\trelated %s:%d: %s\n", filepath.Base(r.Path), r.Line, r.Message)
		}
	}
	return b.String()
}

var dump = flag.Bool("dump", false, "print the diagnostics of every aop-output fixture report")

func TestDumpFixtures(t *testing.T) {
	if !*dump {
		t.Skip("run with -dump")
	}
	files, _ := filepath.Glob("../../fixtures/aop-output/*/*.txt")
	sort.Strings(files)
	for _, f := range files {
		data, _ := os.ReadFile(f)
		opts := lint.Options{BaseDir: filepath.Dir(f)}
		if i := strings.Index(f, "tasktype-"); i >= 0 {
			rest := f[i+len("tasktype-"):]
			opts.TaskType = rest[:strings.IndexAny(rest, "._")]
		}
		fmt.Printf("## %s\n%s", strings.TrimPrefix(f, "../../fixtures/aop-output/"), render(lintReport(string(data), opts)))
	}
}

var writeGolden = flag.Bool("aopgolden", false, "write the golden files of fixtures/aop-output/invalid/*.txt from lintReport (while the driver cannot read reports that open with '[')")

// TestTextGoldens writes (with -aopgolden) or checks the goldens of the text
// fixtures with the rules alone, in the format of lint/all's fixture test.
func TestTextGoldens(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/aop-output/invalid/*.txt")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if _, _, conf := DetectText(data); conf == 0 {
			continue // not a report: the driver's own diagnostics
		}
		opts := lint.Options{BaseDir: filepath.Dir(f)}
		if i := strings.Index(filepath.Base(f), "tasktype-"); i >= 0 {
			rest := filepath.Base(f)[i+len("tasktype-"):]
			opts.TaskType = rest[:strings.IndexAny(rest, "._")]
		}
		var b strings.Builder
		rel := strings.TrimPrefix(filepath.ToSlash(f), "../../fixtures/")
		for _, d := range lintReport(string(data), opts) {
			fmt.Fprintf(&b, "%s:%d:%d: %s: %s [%s]", rel, d.Line, d.Column, d.Severity, d.Message, d.Rule)
			if d.Pointer != "" {
				fmt.Fprintf(&b, " at %s", d.Pointer)
			}
			b.WriteString("\n")
			for _, r := range d.Related {
				fmt.Fprintf(&b, "\trelated line %d: %s\n", r.Line, r.Message)
			}
		}
		if *writeGolden {
			if err := os.WriteFile(f+".golden", []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(f + ".golden")
		if err != nil {
			t.Errorf("%s: no golden (go test ./lint/aopoutput -run TestTextGoldens -aopgolden)", f)
			continue
		}
		if string(want) != b.String() {
			t.Errorf("%s: rules disagree with the golden:\n--- got\n%s--- want\n%s", f, b.String(), want)
		}
	}
}

// TestValidTextFixtures: the valid reports get no error and no warning from the
// rules (the driver's own checks aside).
func TestValidTextFixtures(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/aop-output/valid/*.txt")
	if len(files) == 0 {
		t.Fatal("no valid text fixtures")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		opts := lint.Options{BaseDir: filepath.Dir(f)}
		if i := strings.Index(filepath.Base(f), "tasktype-"); i >= 0 {
			rest := filepath.Base(f)[i+len("tasktype-"):]
			opts.TaskType = rest[:strings.IndexAny(rest, "._")]
		}
		if _, _, conf := DetectText(data); conf == 0 {
			t.Errorf("%s: not detected as a report", f)
		}
		for _, d := range lintReport(string(data), opts) {
			if d.Severity >= lint.Warning {
				t.Errorf("%s:%d:%d: %s [%s]", f, d.Line, d.Column, d.Message, d.Rule)
			}
		}
	}
}
