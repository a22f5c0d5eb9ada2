package aopoutput_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/testdeadline"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// A details file that is a FIFO or a link to /dev/zero is never waited on nor
// read without end; a .json one is reported as unreadable, naming why.
func TestDetailsFileTraps(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o600)
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.json"))
	for name, want := range map[string]string{
		"fifo.json": "not a regular file (a named pipe)",
		"zero.json": "not a regular file (a character device)",
		"fifo.md":   "",
	} {
		report := filepath.Join(dir, "report-"+name+".txt")
		os.WriteFile(report, []byte("[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] Build\n\n[AOP:SUMMARY]\n- Build passed\n\n"+
			"[AOP:DETAILS_FILE] "+name+"\n[AOP:STATUS] success\n[AOP:END] 2026-02-05T10:31:00Z\n"), 0o644)
		done := make(chan []lint.Diagnostic, 1)
		go func() {
			res, err := linter.LintFile(report, linter.Options{})
			if err != nil {
				t.Error(err)
			}
			done <- res.Diagnostics
		}()
		var ds []lint.Diagnostic
		select {
		case ds = <-done:
		case <-testdeadline.Near(t):
			t.Fatalf("a details file %s: the lint hangs", name)
		}
		if want == "" {
			continue
		}
		found := false
		for _, d := range ds {
			found = found || strings.Contains(d.Message, want)
		}
		if !found {
			t.Errorf("details file %s: no diagnostic saying %q: %+v", name, want, ds)
		}
	}
}
