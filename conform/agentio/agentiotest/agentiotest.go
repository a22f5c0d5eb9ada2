// Package agentiotest helps tests run agents as real processes.
package agentiotest

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BuildMockagent builds cmd/mockagent into a temporary directory and returns its
// path. With -short it skips the test: building takes seconds.
func BuildMockagent(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cmd/mockagent")
	}
	bin := filepath.Join(t.TempDir(), "mockagent")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/aopkit/aopkit/cmd/mockagent").CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/mockagent: %v\n%s", err, out)
	}
	return bin
}
