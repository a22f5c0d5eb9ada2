//go:build aoplint_pprof

package aoplintcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfile: a build with -tags aoplint_pprof writes the profile.
func TestCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.pprof")
	var out, errb bytes.Buffer
	code := run([]string{"aoplint", "--cpuprofile", prof, "../../../fixtures/aos/valid/a2a.json"}, strings.NewReader(""), &out, &errb)
	if fi, err := os.Stat(prof); code != 0 || err != nil || fi.Size() == 0 {
		t.Errorf("exit %d, stderr %q, profile %v %v", code, errb.String(), fi, err)
	}
}
