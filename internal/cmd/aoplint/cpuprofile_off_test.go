//go:build !aoplint_pprof

package aoplintcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfileNeedsTheTag: the released build says how to get a profile,
// exits 2 and writes nothing.
func TestCPUProfileNeedsTheTag(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	var out, errb bytes.Buffer
	code := run([]string{"aoplint", "--cpuprofile", prof, "../../../fixtures/aos/valid/a2a.json"}, strings.NewReader(""), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "-tags aoplint_pprof") {
		t.Errorf("exit %d, stderr %q; want 2 and how to build with profiling", code, errb.String())
	}
	if _, err := os.Stat(prof); err == nil {
		t.Errorf("%s was written", prof)
	}
}
