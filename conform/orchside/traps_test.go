package orchside

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/testdeadline"
)

// The files the orchestrator under test controls (its AOF data directory, the
// agent's observation files) are read as bounded regular files: a FIFO or a link
// to /dev/zero is a problem named in the state, never a hang nor a read without
// end.
func TestStateFileTraps(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, "runs", "TASK-2026-11-22-001")
	os.MkdirAll(rd, 0o755)
	if err := syscall.Mkfifo(filepath.Join(rd, "run_heartbeat.json"), 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	os.Symlink("/dev/zero", filepath.Join(rd, "run_result.json"))
	obs := t.TempDir()
	syscall.Mkfifo(filepath.Join(obs, "0001.jsonl"), 0o600)

	done := make(chan struct{})
	var st *AOFState
	var obsErr error
	go func() {
		st = ReadAOFState(dir)
		_, _, obsErr = readObservations(obs)
		close(done)
	}()
	select {
	case <-done:
	case <-testdeadline.Near(t):
		t.Fatal("reading the orchestrator's files hangs")
	}
	all := strings.Join(st.Problems, "\n")
	for _, want := range []string{"run_heartbeat.json: not a regular file (a named pipe)", "run_result.json: symbolic link leads outside the root"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems %q lack %q", all, want)
		}
	}
	if obsErr == nil || !strings.Contains(obsErr.Error(), "not a regular file") {
		t.Errorf("observations: %v", obsErr)
	}
}

// The refusals are kept for the harness to judge (aofReadBack records them as
// file-refused events).
func TestStateKeepsRefusals(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, "runs", "TASK-2026-11-22-001")
	os.MkdirAll(rd, 0o755)
	if err := syscall.Mkfifo(filepath.Join(rd, "run.json"), 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	st := ReadAOFState(dir)
	if len(st.refused) != 1 || !strings.HasSuffix(st.refused[0][0], "run.json") || !strings.Contains(st.refused[0][1], "named pipe") {
		t.Errorf("refused %v", st.refused)
	}
}
