package harness

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestRunDelay: the CPU wait of a live process is readable on Linux, and of no
// process it is not.
func TestRunDelay(t *testing.T) {
	if _, ok := runDelay(0); ok {
		t.Error("pid 0: want not ok")
	}
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	d, ok := runDelay(os.Getpid())
	if !ok || d < 0 {
		t.Errorf("own process: %v, %v; want a non-negative wait", d, ok)
	}
}

// TestProcessStates: a sleeping child is described as asleep, every thread
// counted; no process gives "".
func TestProcessStates(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	if got := processStates(1 << 30); got != "" {
		t.Errorf("no such process: %q, want \"\"", got)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	// Until it sleeps, sleep may be starting (running): wait for the state,
	// without a time limit of the test's own (go test's -timeout bounds it).
	for {
		got := processStates(cmd.Process.Pid)
		if got == "threads: 1 asleep" {
			return
		}
		if !strings.HasPrefix(got, "threads: 1 ") {
			t.Fatalf("sleep 60: %q, want one thread", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
