package aopoutput_test

import (
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
