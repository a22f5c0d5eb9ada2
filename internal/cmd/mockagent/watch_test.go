package mockagentcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/mockagent"
)

// TestWatchOrchestrator: the observation records the watched process's end,
// and only after it ended.
func TestWatchOrchestrator(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pidfd: linux only")
	}
	dir := t.TempDir()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pidFile := filepath.Join(dir, "orchestrator.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	obsDir := filepath.Join(dir, "observe")
	obs, err := mockagent.NewObserver(obsDir, []string{"mockagent"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	watchOrchestrator(obs, pidFile, done)
	read := func() string {
		names, _ := filepath.Glob(filepath.Join(obsDir, "*.jsonl"))
		if len(names) != 1 {
			t.Fatalf("observation files %v", names)
		}
		b, _ := os.ReadFile(names[0])
		return string(b)
	}
	for !strings.Contains(read(), `"orchestrator-watch"`) {
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(read(), `"orchestrator-exit"`) {
		t.Fatal("exit recorded while the process runs")
	}
	cmd.Process.Kill()
	cmd.Wait()
	for !strings.Contains(read(), `"orchestrator-exit"`) {
		time.Sleep(10 * time.Millisecond)
	}
	obs.Exit(0)
}
