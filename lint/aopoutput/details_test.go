package aopoutput_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/aopoutput"
	"github.com/aopkit/aopkit/lint/linter"
)

// TestDetailsFileRelativeToWorkingDirectory: an agent writes DETAILS_FILE relative
// to the directory it runs in (the project root); a report linted from there, in
// another directory, finds it. A missing file names every path tried.
func TestDetailsFileRelativeToWorkingDirectory(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".cache/agent-outputs", "reports"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	details := `{"task": "Build the web bundle", "status": "success", "timestamp": "2026-02-05T10:31:00Z", "summary": "Build passed", "details": {}}`
	if err := os.WriteFile(filepath.Join(root, ".cache/agent-outputs/build.json"), []byte(details), 0o644); err != nil {
		t.Fatal(err)
	}
	report := func(path string) string {
		return "[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] Build the web bundle\n\n[AOP:SUMMARY]\n- Build passed\n\n" +
			"[AOP:DETAILS_FILE] " + path + "\n[AOP:STATUS] success\n[AOP:END] 2026-02-05T10:31:00Z\n"
	}
	for name, path := range map[string]string{"found.txt": ".cache/agent-outputs/build.json", "missing.txt": ".cache/agent-outputs/none.json"} {
		if err := os.WriteFile(filepath.Join(root, "reports", name), []byte(report(path)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	res, err := linter.LintFile("reports/found.txt", linter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		if d.Rule == aopoutput.DetailsExists.ID {
			t.Errorf("the details file relative to the working directory is not found: %s", d.Message)
		}
	}
	res, err = linter.LintFile("reports/missing.txt", linter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, d := range res.Diagnostics {
		if d.Rule == aopoutput.DetailsExists.ID {
			msg = d.Message
		}
	}
	for _, want := range []string{"reports/.cache/agent-outputs/none.json", ", .cache/agent-outputs/none.json"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the diagnostic does not name the path tried %q: %q", want, msg)
		}
	}
}

// TestDetailsMissingSeverity: whether a stored report's details file exists
// depends on where aoplint runs, so a missing one is a warning; where the
// directory the agent ran in is known (DetailsRoot: --details-root, aopconform's
// lint step) it is looked for there alone and a missing one is an error. A
// malformed one (AOPOUT-DETAILS-003) is an error either way.
func TestDetailsMissingSeverity(t *testing.T) {
	dir := t.TempDir()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, s := range map[string]string{
		filepath.Join(root, "out", "found.json"):  `{"aop_version":"1.0.0","agent_id":"a","task":"t","timestamp":"2026-02-05T10:31:00Z","results":{}}`,
		filepath.Join(root, "out", "broken.json"): `{"aop_version": 1, "results": [] `,
		filepath.Join(dir, "out", "broken.json"):  `{"aop_version": 1, "results": [] `,
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	report := func(path string) string {
		return "[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] Search auth code\n\n[AOP:SUMMARY]\n- Found 3 handlers\n\n" +
			"[AOP:DETAILS_FILE] " + path + "\n[AOP:STATUS] success\n[AOP:END] 2026-02-05T10:31:00Z\n"
	}
	for _, tt := range []struct {
		name, path, root string
		rule             string
		want             string // severity of rule's diagnostic, "" for none
	}{
		// The spec's "Good: Search Agent" example, linted where .claude/cache does not exist.
		{"stored, missing", ".claude/cache/agent-outputs/search-auth-1707130200.json", "", aopoutput.DetailsExists.ID, "warning"},
		{"stored, malformed", "out/broken.json", "", aopoutput.DetailsValid.ID, "error"},
		{"rooted, missing", "out/never-written.json", root, aopoutput.DetailsExists.ID, "error"},
		{"rooted, present", "out/found.json", root, aopoutput.DetailsExists.ID, ""},
		{"rooted, present elsewhere only", "out/broken.json", t.TempDir(), aopoutput.DetailsExists.ID, "error"},
		{"rooted, absolute missing", filepath.ToSlash(filepath.Join(root, "out", "gone.json")), root, aopoutput.DetailsExists.ID, "error"},
		{"rooted, malformed", "out/broken.json", root, aopoutput.DetailsValid.ID, "error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(dir, "report.txt")
			if err := os.WriteFile(f, []byte(report(tt.path)), 0o644); err != nil {
				t.Fatal(err)
			}
			var opts linter.Options
			opts.DetailsRoot = tt.root
			res, err := linter.LintFile(f, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, d := range res.Diagnostics {
				if d.Rule == tt.rule {
					got = d.Severity.String()
				}
			}
			if got != tt.want {
				t.Errorf("%s: severity %q, want %q (%v)", tt.rule, got, tt.want, res.Diagnostics)
			}
		})
	}
}

// TestDetailsRootTranscript: in a transcript (aopconform's lint step) the report's
// details file is checked only when the directory the agent ran in is known.
func TestDetailsRootTranscript(t *testing.T) {
	text := "[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] Search auth code\n\n[AOP:SUMMARY]\n- Found 3 handlers\n\n[AOP:DETAILS_FILE] out/never-written.json\n[AOP:STATUS] success\n[AOP:END] 2026-02-05T10:31:00Z\n"
	b, _ := json.Marshal(map[string]any{"aopkit": "transcript/1", "seq": 1, "at": "2026-02-05T10:31:00Z", "from": "agent", "stream": "stdout", "protocol": "aop-output", "text": text})
	for _, root := range []string{"", t.TempDir()} {
		var opts linter.Options
		opts.DetailsRoot = root
		res, err := linter.LintStream("t.jsonl", strings.NewReader(string(b)+"\n"), opts)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range res.Diagnostics {
			if d.Rule == aopoutput.DetailsExists.ID {
				found = d.Severity.String() == "error"
			}
		}
		if found != (root != "") {
			t.Errorf("root %q: DETAILS-002 error %v (%v)", root, found, res.Diagnostics)
		}
	}
}
