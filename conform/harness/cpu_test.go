package harness

import (
	"os"
	"runtime"
	"testing"
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
