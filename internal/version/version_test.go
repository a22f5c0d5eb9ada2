package version

import (
	"strings"
	"testing"
)

// TestOverrideWins: the Makefile's -ldflags -X …/internal/version.Override=vX.Y.Z is what
// every command prints; without it the build info decides, and a test binary (no
// module version, no VCS stamp) says dev.
func TestOverrideWins(t *testing.T) {
	Override = "v1.2.3"
	if got := compute(); got != "v1.2.3" {
		t.Errorf("with Override: %q", got)
	}
	Override = ""
	if got := compute(); !strings.HasPrefix(got, "dev") && !strings.HasPrefix(got, "v") {
		t.Errorf("without Override: %q, want dev… or a module version", got)
	}
}
