package aopconformcmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/mockagent"
)

// openPTY opens a pseudo-terminal: the run writes to tty, the test reads
// master.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	return m, s
}

// runOnTTY runs a small selection with stdout a terminal and returns what the
// terminal got.
func runOnTTY(t *testing.T) string {
	t.Helper()
	ag, err := mockagent.Lookup("aop-output")
	if err != nil {
		t.Fatal(err)
	}
	master, tty := openPTY(t)
	defer master.Close()
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once tty is closed
		got <- b
	}()
	cfg := runConfig{
		Protocol: "aop-output", Builtin: true, Run: "aop-output/bind/*", TimeoutScale: 1, Repeat: 1,
		Out: filepath.Join(t.TempDir(), "out"), NoLint: true,
		Command: []string{"/bin/true"}, launcher: agentio.InProcess{Agent: ag},
	}
	var stderr bytes.Buffer
	err = runCmd(context.Background(), cfg, tty, &stderr)
	tty.Close()
	out := string(<-got)
	if err != nil && !strings.Contains(out, "PASS") {
		t.Fatalf("run: %v\n%s\n%s", err, stderr.String(), out)
	}
	return out
}

// TestColorOnTerminal (issue 31): on a terminal the verdicts are coloured, as
// aoplint colours severities; NO_COLOR (any value) or TERM=dumb turns it off.
func TestColorOnTerminal(t *testing.T) {
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "")
	os.Unsetenv("NO_COLOR")
	if out := runOnTTY(t); !strings.Contains(out, "\x1b[32mPASS\x1b[0m") {
		t.Errorf("no coloured PASS on a terminal:\n%q", out)
	}
	t.Setenv("NO_COLOR", "1")
	if out := runOnTTY(t); strings.Contains(out, "\x1b") || !strings.Contains(out, "PASS") {
		t.Errorf("colour (or no verdict) on a terminal with NO_COLOR:\n%q", out)
	}
	os.Unsetenv("NO_COLOR")
	t.Setenv("TERM", "dumb")
	if out := runOnTTY(t); strings.Contains(out, "\x1b") {
		t.Errorf("colour on a terminal with TERM=dumb:\n%q", out)
	}
}
