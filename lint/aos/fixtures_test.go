package aos_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestNoInternalErrors lints every aos fixture, detected and forced, and fails on
// any rule panic (the driver turns panics into "internal error" diagnostics, which
// a golden file could otherwise record as expected).
func TestNoInternalErrors(t *testing.T) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "aos", dir, "*"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil || strings.HasSuffix(file, ".golden") {
				continue
			}
			for _, opts := range []linter.Options{{}, {Protocol: "aos"}} {
				for _, d := range linter.LintBytes(file, data, opts).Diagnostics {
					if strings.Contains(d.Message, "internal error") {
						t.Errorf("%s (protocol %q): %s: %s", file, opts.Protocol, d.Rule, d.Message)
					}
				}
			}
		}
	}
}
