package aopconformcmd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFindMockagentOrder: --mockagent first, then the mockagent next to
// aopconform, then the one on PATH (a stale one installed earlier on PATH must not
// win over the one built with this aopconform).
func TestFindMockagentOrder(t *testing.T) {
	exeDir, pathDir, other := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(dir string, mode os.FileMode) string {
		p := filepath.Join(dir, "mockagent")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	onPath := write(pathDir, 0o755)
	t.Setenv("PATH", pathDir)

	if got, err := findMockagentFrom("", exeDir); err != nil || got != onPath {
		t.Errorf("none next to aopconform: got %q, %v; want the one on PATH %q", got, err, onPath)
	}
	// Not executable: not taken.
	write(exeDir, 0o644)
	if got, err := findMockagentFrom("", exeDir); err != nil || got != onPath {
		t.Errorf("a non-executable file next to aopconform: got %q, %v; want %q", got, err, onPath)
	}
	next := write(exeDir, 0o755)
	if err := os.Chmod(next, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := findMockagentFrom("", exeDir); err != nil || got != next {
		t.Errorf("one next to aopconform and one on PATH: got %q, %v; want the one next to aopconform %q", got, err, next)
	}
	flagged := write(other, 0o755)
	if got, err := findMockagentFrom(flagged, exeDir); err != nil || got != flagged {
		t.Errorf("--mockagent: got %q, %v; want %q", got, err, flagged)
	}
	var ue usageError
	if _, err := findMockagentFrom(filepath.Join(other, "missing"), exeDir); !errors.As(err, &ue) {
		t.Errorf("--mockagent of a missing program: %v, want a usage error", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := findMockagentFrom("", t.TempDir()); !errors.As(err, &ue) {
		t.Errorf("no mockagent anywhere: %v, want a usage error", err)
	}
}
