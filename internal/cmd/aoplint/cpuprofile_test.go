package aoplintcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfile: a build with -tags aoplint_pprof writes the profile; the
// released build says how to get one, exits 2 and writes nothing.
func TestCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	var out, errb bytes.Buffer
	code := run([]string{"aoplint", "--cpuprofile", prof, "../../../fixtures/aos/valid/a2a.json"}, strings.NewReader(""), &out, &errb)
	fi, err := os.Stat(prof)
	if profiling {
		if code != 0 || err != nil || fi.Size() == 0 {
			t.Errorf("exit %d, stderr %q, profile %v %v", code, errb.String(), fi, err)
		}
		return
	}
	if code != 2 || !strings.Contains(errb.String(), "-tags aoplint_pprof") {
		t.Errorf("exit %d, stderr %q; want 2 and how to build with profiling", code, errb.String())
	}
	if err == nil {
		t.Errorf("%s was written", prof)
	}
}
