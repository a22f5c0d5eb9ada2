//go:build unix

package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCleanStale (issue 33 item 10): the scratch directories of a run that died
// (its lock file can be locked) go, with their lock file; a live run's (its lock
// held, here by claimScratch in this process), another user's lookalike and
// directories without a lock file stay. A link named like a stale directory is
// never followed.
func TestCleanStale(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "sub", "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A dead run: its lock file is there, unlocked.
	const dead = "0123456789abcdef"
	if err := os.WriteFile(filepath.Join(dir, scratchPrefix+dead+lockSuffix), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	stale1 := mk(scratchPrefix + dead + "-aop2-happy-path-123")
	stale2 := mk(scratchPrefix + dead + "-aof-resume-456")
	victim := mk("victim")
	if err := os.Symlink(victim, filepath.Join(dir, scratchPrefix+dead+"-link-789")); err != nil {
		t.Fatal(err)
	}
	// A live run.
	live, err := claimScratch(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer live.release()
	liveDir, err := live.scratchDir("aop2/happy path")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(liveDir), live.prefix+"aop2_happy_path-") {
		t.Fatalf("scratch directory %s is not named for its owner (%s)", liveDir, live.prefix)
	}
	// Unowned: an older aopconform's, and one of another run with no lock file.
	unowned := mk("aopconform-aop2-happy-path-111")
	orphan := mk(scratchPrefix + "fedcba9876543210-aop2-x-222")

	removed := cleanStale(dir)
	for _, p := range []string{stale1, stale2, filepath.Join(dir, scratchPrefix+dead+lockSuffix)} {
		if _, err := os.Lstat(p); err == nil || !slices.Contains(removed, p) {
			t.Errorf("%s: not removed (removed %v)", p, removed)
		}
	}
	for _, p := range []string{liveDir, live.path, unowned, orphan, filepath.Join(victim, "sub", "f")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v, want it kept", p, err)
		}
	}
	// Once released, the live run's lock file is gone: nothing of it is cleaned
	// (the run removes its own directories).
	live.release()
	if _, err := os.Lstat(live.path); err == nil {
		t.Errorf("released lock file %s still there", live.path)
	}
}
