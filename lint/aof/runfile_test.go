package aof

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// TestRunArtifactAlone lints every run artifact of the data-directory fixtures as a
// file of its own (aoplint runs/<taskId>/run_result.json): it gets the same
// AOF-DIR-003 and AOF-SEQ-005 findings as in its data directory (the directory
// name, and the artifacts written before it in runs/<taskId>/).
func TestRunArtifactAlone(t *testing.T) {
	var dirs []string
	for _, sub := range []string{"valid", "invalid"} {
		es, _ := os.ReadDir(filepath.Join("..", "..", "fixtures", "aof", sub))
		for _, e := range es {
			if p := filepath.Join("..", "..", "fixtures", "aof", sub, e.Name()); e.IsDir() && IsDataDir(p) {
				dirs = append(dirs, p)
			}
		}
	}
	if len(dirs) < 5 {
		t.Fatalf("found %d data-directory fixtures", len(dirs))
	}
	crossFile := map[string]bool{DirRuns.ID: true, SeqArtifacts.ID: true}
	render := func(ds []lint.Diagnostic) []string {
		var out []string
		for _, d := range ds {
			if crossFile[d.Rule] && d.Severity == lint.Error {
				out = append(out, fmt.Sprintf("%d:%d %s %s", d.Line, d.Column, d.Rule, d.Message))
			}
		}
		sort.Strings(out)
		return out
	}
	found := 0
	for _, dir := range dirs {
		res, err := LintDataDir(dir, driverFiles())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if _, _, ok := runFileName(r.Path); !ok {
				continue
			}
			alone, err := linter.LintFile(r.Path, linter.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, got := render(r.Diagnostics), render(alone.Diagnostics)
			found += len(want)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s linted alone:\n got %q\nwant %q (as in its data directory)", r.Path, got, want)
			}
		}
	}
	if found < 4 {
		t.Errorf("only %d cross-file findings in the fixtures: the test compares nothing", found)
	}
}

// runFileName is runFile for a path: the run artifacts by name.
func runFileName(path string) (dir, name string, ok bool) {
	name = filepath.Base(path)
	for _, n := range runArtifactNames {
		if n == name {
			return filepath.Dir(path), name, true
		}
	}
	return "", "", false
}

func TestRunArtifactAloneNotUnderRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "artifacts", "TASK-2026-02-09-057")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run := `{"taskId":"TASK-2026-02-09-057","agentId":"swe-backend","startedAt":"2026-02-09T20:55:00.000Z","status":"running","artifactPaths":{}}`
	res := `{"taskId":"TASK-2026-02-09-058","agentId":"swe-frontend","completedAt":"2026-02-09T21:10:00.000Z","outcome":"done","summaryRef":"outputs/summary.md","handoffRef":"outputs/handoff.md","deliverables":[],"tests":{"total":1,"passed":1,"failed":0},"blockers":[],"notes":"ok"}`
	for name, body := range map[string]string{"run.json": run, "run_result.json": res} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := linter.LintFile(filepath.Join(dir, "run_result.json"), linter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, d := range r.Diagnostics {
		if d.Rule == DirRuns.ID || d.Rule == SeqArtifacts.ID {
			rules = append(rules, d.Rule+": "+d.Message)
		}
	}
	// not under runs/: no directory check; the sibling run.json is still compared
	if len(rules) != 1 || !strings.Contains(rules[0], SeqArtifacts.ID+`: run_result.json carries taskId "TASK-2026-02-09-058", but run.json beside it carries "TASK-2026-02-09-057"`) {
		t.Errorf("got %q, want one AOF-SEQ-005 (taskId) and no AOF-DIR-003", rules)
	}
}

// TestHandoffMDAlone lints every inputs/handoff.md of the data-directory fixtures as
// a file of its own: it is recognised (DetectText) and gets the same AOF-DIR-004
// findings as in its data directory, compared with the handoff.json beside it.
func TestHandoffMDAlone(t *testing.T) {
	var mds []string
	filepath.WalkDir(filepath.Join("..", "..", "fixtures", "aof"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "handoff.md" && filepath.Base(filepath.Dir(path)) == "inputs" {
			mds = append(mds, path)
		}
		return nil
	})
	if len(mds) < 2 {
		t.Fatalf("found %d handoff.md fixtures", len(mds))
	}
	render := func(ds []lint.Diagnostic) []string {
		var out []string
		for _, d := range ds {
			if d.Rule == DirHandoff.ID || d.Severity == lint.Error {
				out = append(out, fmt.Sprintf("%d:%d %s %s %v", d.Line, d.Column, d.Rule, d.Message, d.Related))
			}
		}
		sort.Strings(out)
		return out
	}
	found := 0
	for _, md := range mds {
		// the data directory is the ancestor holding tasks/
		root := md
		for root != "." && filepath.Base(root) != "tasks" {
			root = filepath.Dir(root)
		}
		res, err := LintDataDir(filepath.Dir(root), driverFiles())
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range res {
			if r.Path == md {
				want = render(r.Diagnostics)
			}
		}
		alone, err := linter.LintFile(md, linter.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if alone.Protocol != "aof" || alone.Kind != KindHandoffMD {
			t.Errorf("%s linted alone: protocol %q kind %q, want aof %s", md, alone.Protocol, alone.Kind, KindHandoffMD)
		}
		got := render(alone.Diagnostics)
		found += len(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s linted alone:\n got %q\nwant %q (as in its data directory)", md, got, want)
		}
	}
	if found == 0 {
		t.Error("no handoff.md finding in the fixtures: the test compares nothing")
	}
}

func TestDetectTextHandoffMD(t *testing.T) {
	tests := []struct {
		in   string
		conf int
	}{
		{"# Handoff Request\n\n**From:** a\n**To:** b\n**Due By:** 2026-02-10T12:00:00.000Z\n", 90},
		{"\xef\xbb\xbf\n# Handoff Request\r\n\r\n**To:** b\r\n", 90},
		{"# Handoff Request\n\n## Acceptance Criteria\n\n- x\n", 70},
		{"# Handoff Request", 0},
		{"# Handoff Request\njust text\n", 0},
		{"# Task\n\n**From:** a\n", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if _, _, c := DetectText([]byte(tt.in)); c != tt.conf {
			t.Errorf("DetectText(%q) = %d, want %d", tt.in, c, tt.conf)
		}
	}
}
