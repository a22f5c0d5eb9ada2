package harness

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestSchedTotals: the CPU time and wait of a live process are readable on
// Linux, and of no process they are not.
func TestSchedTotals(t *testing.T) {
	if _, _, ok := schedTotals(0); ok {
		t.Error("pid 0: want not ok")
	}
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	on, d, ok := schedTotals(os.Getpid())
	if !ok || d < 0 || on <= 0 {
		t.Errorf("own process: ran %v, waited %v, %v; want a positive run time and a non-negative wait", on, d, ok)
	}
}

// TestExcusedWait: the machine owes an agent the wall time the CPU that other
// processes took from it is worth at the parallelism the agent could use; an
// agent that keeps every CPU busy itself is owed nothing.
func TestExcusedWait(t *testing.T) {
	const s = time.Second
	for _, c := range []struct {
		name            string
		dt, dCPU, dWait time.Duration
		cores           int
		want            time.Duration
	}{
		{"one thread, machine loaded by others", s, s / 5, 4 * s / 5, 2, 4 * s / 5},
		{"idle machine, no wait", s, s / 2, 0, 2, 0},
		{"eight busy threads on two cores: its own load", s, 2 * s, 6 * s, 2, 0},
		{"eight threads, half the machine's CPU to others", s, s, 7 * s, 2, s / 2},
		{"one thread, the machine all to others", s, 0, s, 2, s},
		{"two threads on four cores, one of them starved", s, s, s, 4, s / 2},
		{"readings skewed: more CPU than the machine has", s, 3 * s, s, 2, 0},
		{"no time passed", 0, 0, 0, 2, 0},
		{"asleep most of the interval: only what it waited", s, s / 20, s / 20, 2, s / 20},
	} {
		if got := excusedWait(c.dt, c.dCPU, c.dWait, c.cores); got != c.want {
			t.Errorf("%s: excusedWait(%v, %v, %v, %d) = %v, want %v", c.name, c.dt, c.dCPU, c.dWait, c.cores, got, c.want)
		}
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
