package agentio

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// guard bounds how long a test waits for something that must happen; it is a hang
// guard, not a timing assertion.
const guard = 5 * time.Minute

func startSh(t *testing.T, script string) *ProcessConn {
	t.Helper()
	dir := t.TempDir()
	c, err := Process{PipeGrace: 200 * time.Millisecond, SendTimeout: 500 * time.Millisecond}.Start(
		context.Background(), Spec{Dir: dir, Args: []string{"sh", "-c", script}, Env: []string{"AOPKIT_TEST=1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Kill(); c.Abandon() })
	return c
}

// drain collects lines until the channel closes (the first 1000 of them).
func drain(t *testing.T, c *ProcessConn) []Line { return drainUpTo(t, c, 1000) }

// drainAll collects every line until the channel closes (no cap on the count).
func drainAll(t *testing.T, c *ProcessConn) []Line { return drainUpTo(t, c, -1) }

// drainUpTo collects lines until the channel closes, keeping the first max
// (all of them when max < 0).
func drainUpTo(t *testing.T, c *ProcessConn, max int) (lines []Line) {
	t.Helper()
	timeout := time.After(guard)
	for {
		select {
		case l, ok := <-c.Lines():
			if !ok {
				return lines
			}
			if max < 0 || len(lines) < max {
				lines = append(lines, l)
			}
		case <-timeout:
			t.Fatal("output streams never closed")
		}
	}
}

func waitDone(t *testing.T, c *ProcessConn) Exit {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(guard):
		t.Fatal("agent never exited")
	}
	return c.Exit()
}

// groupAlive reports whether any live (non-zombie) process is in group pgid.
func groupAlive(t *testing.T, pgid int) bool {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		if f[0] == "Z" || f[0] == "X" {
			continue
		}
		if pg, _ := strconv.Atoi(f[2]); pg == pgid {
			return true
		}
	}
	return false
}

func assertGroupGone(t *testing.T, c *ProcessConn) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for groupAlive(t, c.Pgid()) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still alive", c.Pgid())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestProcessHappy(t *testing.T) {
	t.Parallel()
	c := startSh(t, `read line; echo "got $line in $(basename "$PWD") $AOPKIT_TEST"; echo oops >&2; exit 3`)
	if err := c.Send([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	lines := drain(t, c)
	ex := waitDone(t, c)
	if ex.Code != 3 || ex.Signal != "" {
		t.Errorf("exit = %+v, want code 3", ex)
	}
	var out, errs []string
	for _, l := range lines {
		if l.Stream == "stdout" {
			out = append(out, string(l.Data))
		} else {
			errs = append(errs, string(l.Data))
		}
	}
	if len(out) != 1 || !strings.HasPrefix(out[0], "got hello in ") || !strings.HasSuffix(out[0], " 1") {
		t.Errorf("stdout = %q", out)
	}
	if len(errs) != 1 || errs[0] != "oops" {
		t.Errorf("stderr = %q", errs)
	}
	assertGroupGone(t, c)
}

func TestProcessStartError(t *testing.T) {
	t.Parallel()
	if _, err := (Process{}).Launch(context.Background(), Spec{Dir: t.TempDir(), Args: []string{"/nonexistent/agent"}}); err == nil {
		t.Fatal("want an error for a missing binary")
	}
	if _, err := (Process{}).Launch(context.Background(), Spec{}); err == nil {
		t.Fatal("want an error for an empty command")
	}
}

func TestProcessHostile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		// stop: how the harness ends it ("" = it ends by itself)
		stop  string
		check func(t *testing.T, c *ProcessConn, lines []Line, ex Exit)
	}{
		{name: "never-exits", script: `while :; do sleep 1; done`, stop: "term",
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				if ex.Signal != "SIGTERM" {
					t.Errorf("exit = %+v, want SIGTERM", ex)
				}
			}},
		{name: "ignores-sigterm", script: `trap '' TERM; echo ready; while :; do sleep 1; done`, stop: "term-then-kill",
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				if ex.Signal != "SIGKILL" {
					t.Errorf("exit = %+v, want SIGKILL", ex)
				}
			}},
		{name: "grandchildren-hold-pipes", script: `sleep 1000 & sleep 1000 & echo bye; exit 0`,
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				if ex.Code != 0 {
					t.Errorf("exit = %+v, want 0", ex)
				}
				if len(lines) != 1 || string(lines[0].Data) != "bye" {
					t.Errorf("lines = %v", lines)
				}
			}},
		{name: "escaped-grandchild-holds-pipes", script: `setsid sleep 3 & echo bye; exit 0`,
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				if ex.Code != 0 {
					t.Errorf("exit = %+v", ex)
				}
			}},
		{name: "flood-1GB", script: `yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz | head -c 1073741824`,
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				d, capped := c.Discarded()
				if !capped || d == 0 {
					t.Errorf("discarded=%d capped=%v, want the output cap hit", d, capped)
				}
			}},
		{name: "line-50MB", script: `head -c 52428800 /dev/zero | tr '\0' a; echo; echo after`,
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				if len(lines) != 2 || !lines[0].Truncated || len(lines[0].Data) != MaxLine || string(lines[1].Data) != "after" {
					t.Errorf("got %d lines, first truncated=%v len=%d", len(lines), len(lines) > 0 && lines[0].Truncated, len(lines[0].Data))
				}
				if d, _ := c.Discarded(); d < 50<<20-MaxLine {
					t.Errorf("discarded = %d", d)
				}
			}},
		{name: "binary-garbage", script: `head -c 300000 /dev/urandom; printf '\000\377\376\n'`,
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				if len(lines) == 0 || ex.Code != 0 {
					t.Errorf("lines=%d exit=%+v", len(lines), ex)
				}
			}},
		{name: "closes-stdin", script: `exec 0<&-; echo closed; sleep 0.3; exit 0`,
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				if len(lines) != 1 {
					t.Errorf("lines = %v", lines)
				}
			}},
		{name: "exits-at-once", script: `exit 0`,
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {
				if ex.Code != 0 || len(lines) != 0 {
					t.Errorf("exit=%+v lines=%v", ex, lines)
				}
				if err := c.Send([]byte("late")); err == nil {
					t.Error("send to an exited agent succeeded")
				}
			}},
		{name: "does-not-read-stdin", script: `sleep 1000`, stop: "send-then-kill",
			check: func(t *testing.T, c *ProcessConn, lines []Line, ex Exit) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startSh(t, tt.script)
			var peak atomic.Uint64
			stopMem := make(chan struct{})
			go func() {
				var ms runtime.MemStats
				for {
					select {
					case <-stopMem:
						return
					case <-time.After(50 * time.Millisecond):
					}
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			}()
			switch tt.stop {
			case "term":
				time.Sleep(100 * time.Millisecond)
				c.Terminate()
			case "term-then-kill":
				// wait until the trap is installed
				l := <-c.Lines()
				if string(l.Data) != "ready" {
					t.Fatalf("first line %q", l.Data)
				}
				c.Terminate()
				select {
				case <-c.Done():
					t.Fatal("the agent obeyed SIGTERM it ignores")
				case <-time.After(300 * time.Millisecond):
				}
				c.Kill()
			case "send-then-kill":
				big := bytes.Repeat([]byte("x"), 1<<20)
				var err error
				for i := 0; i < 8 && err == nil; i++ {
					err = c.Send(big)
				}
				if err == nil {
					t.Error("sending 8 MiB to an agent that does not read never failed")
				}
				c.Kill()
			}
			lines := drain(t, c)
			ex := waitDone(t, c)
			close(stopMem)
			tt.check(t, c, lines, ex)
			assertGroupGone(t, c)
			if p := peak.Load(); p > 512<<20 {
				t.Errorf("heap in use peaked at %d MiB", p>>20)
			}
		})
	}
}

func TestProcessContextCancelKills(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Process{}.Start(ctx, Spec{Dir: t.TempDir(), Args: []string{"sh", "-c", "trap '' TERM; sleep 1000"}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	ex := waitDone(t, c)
	if ex.Signal != "SIGKILL" {
		t.Errorf("exit = %+v", ex)
	}
	assertGroupGone(t, c)
}

// TestProcessTimingsScale: the pipe grace and the send timeout stretch with the
// run's --timeout-scale (Spec.Scale), as every limit of the harness does.
func TestProcessTimingsScale(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scale       float64
		grace, send time.Duration
	}{{0, DefaultPipeGrace, DefaultSendTimeout}, {1, DefaultPipeGrace, DefaultSendTimeout}, {3, 3 * DefaultPipeGrace, 3 * DefaultSendTimeout}} {
		c, err := Process{}.Start(context.Background(), Spec{Dir: t.TempDir(), Args: []string{"sh", "-c", "exit 0"}, Scale: tc.scale})
		if err != nil {
			t.Fatal(err)
		}
		if c.grace != tc.grace || c.sendTO != tc.send {
			t.Errorf("scale %g: pipe grace %v, send timeout %v; want %v, %v", tc.scale, c.grace, c.sendTO, tc.grace, tc.send)
		}
		waitDone(t, c)
		c.Abandon()
	}
}
