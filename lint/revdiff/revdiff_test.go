package revdiff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestChanged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	run(t, dir, "init", "-q")
	write(t, filepath.Join(dir, "a.jsonl"), "1\n2\n3\n4\n5\n")
	write(t, filepath.Join(dir, "sub dir", "b.json"), "x\ny\n")
	write(t, filepath.Join(dir, "gone.json"), "z\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "one")
	// Line 2 changed, a line after 4 added, line 1 of b.json deleted (no new
	// line), gone.json removed, new.json untracked, ignored.json ignored.
	write(t, filepath.Join(dir, "a.jsonl"), "1\nTWO\n3\n4\nnew\n5\n")
	write(t, filepath.Join(dir, "sub dir", "b.json"), "y\n")
	os.Remove(filepath.Join(dir, "gone.json"))
	write(t, filepath.Join(dir, "new.json"), "n\n")
	write(t, filepath.Join(dir, ".gitignore"), "ignored.json\n")
	write(t, filepath.Join(dir, "ignored.json"), "i\n")

	c, err := Changed(dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		line int
		want bool
	}{
		{"a.jsonl", 1, false}, {"a.jsonl", 2, true}, {"a.jsonl", 3, false}, {"a.jsonl", 5, true}, {"a.jsonl", 6, false},
		{"a.jsonl", 0, true},
		{"sub dir/b.json", 1, false}, {"sub dir/b.json", 0, true},
		{"new.json", 7, true}, {"ignored.json", 1, false}, {"gone.json", 1, false},
		{"../elsewhere.json", 1, false},
	} {
		if got := c.New(filepath.Join(dir, tc.path), tc.line); got != tc.want {
			t.Errorf("New(%s, %d) = %v, want %v", tc.path, tc.line, got, tc.want)
		}
	}

	// A relative path is taken from the working directory.
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	r := c.Filter(linter.FileResult{Path: "a.jsonl", Diagnostics: []lint.Diagnostic{{Rule: "A", Line: 1}, {Rule: "B", Line: 2}, {Rule: "C", Line: 5, Path: "new.json"}, {Rule: "D", Line: 3}}, NotKept: &linter.SeverityCounts{}}, "<stdin>")
	var kept []string
	for _, d := range r.Diagnostics {
		kept = append(kept, d.Rule)
	}
	if strings.Join(kept, " ") != "B C" || r.NotKept == nil {
		t.Errorf("Filter kept %v (NotKept %v), want B C and the counts", kept, r.NotKept)
	}
	if r := c.Filter(linter.FileResult{Path: "<stdin>", Diagnostics: []lint.Diagnostic{{Rule: "A", Line: 1}}}, "<stdin>"); len(r.Diagnostics) != 1 {
		t.Error("standard input was filtered")
	}
	if r := c.Filter(linter.FileResult{Path: "sub dir/b.json", Diagnostics: []lint.Diagnostic{{Rule: "A", Line: 1}}, NotKept: &linter.SeverityCounts{}}, "<stdin>"); len(r.Diagnostics) != 0 || r.NotKept == nil {
		t.Errorf("b.json: %+v", r)
	}

	if _, err := Changed(dir, "no-such-rev"); err == nil || !strings.Contains(err.Error(), "no such commit") {
		t.Errorf("a bad revision: %v", err)
	}
	if _, err := Changed(t.TempDir(), "HEAD"); err == nil || !strings.Contains(err.Error(), "git work tree") {
		t.Errorf("outside a work tree: %v", err)
	}
}
