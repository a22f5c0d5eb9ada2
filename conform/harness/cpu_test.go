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

// TestExcusedWait: the machine owes an agent its wait up to the CPU time the
// agent did not get, never more than the wall time; an agent that keeps every
// CPU busy itself is owed nothing, and a single-threaded one exactly its wait.
func TestExcusedWait(t *testing.T) {
	const s = time.Second
	for _, c := range []struct {
		name                 string
		elapsed, ran, waited time.Duration
		cores                int
		want                 time.Duration
	}{
		{"one thread, machine loaded by others", s, s / 5, 4 * s / 5, 2, 4 * s / 5},
		{"idle machine, no wait", s, s / 2, 0, 2, 0},
		{"eight busy threads on two cores: its own load", s, 2 * s, 6 * s, 2, 0},
		{"eight threads, one core to others: what the others took", s, s, 7 * s, 2, s},
		{"one thread, the machine all to others", s, 0, s, 2, s},
		{"four threads waiting side by side: at most the wall time", s, s / 4, 3 * s, 4, s},
		{"readings skewed: more CPU than the machine has", s, 3 * s, s, 2, 0},
		{"no time passed", 0, 0, 0, 2, 0},
		{"asleep most of the time: only what it waited", s, s / 20, s / 20, 2, s / 20},
		{"one thread that waited nearly all the time", 100 * time.Millisecond, 10 * time.Millisecond, 90 * time.Millisecond, 2, 90 * time.Millisecond},
	} {
		if got := excusedWait(c.elapsed, c.ran, c.waited, c.cores); got != c.want {
			t.Errorf("%s: excusedWait(%v, %v, %v, %d) = %v, want %v", c.name, c.elapsed, c.ran, c.waited, c.cores, got, c.want)
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
