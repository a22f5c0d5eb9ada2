package agentio

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// writerEnv makes the test binary an agent (lateWriter) that writes writerLines
// numbered lines to stdout and as many to stderr, then exits 0. First it fills
// the harness's Lines channel: 20 lines to stdout in one write of less than
// PIPE_BUF (a reader takes such a write whole) and 4 to stderr, and waits until
// its pipes are empty. The stdout reader then holds 20 lines, more than the
// channel takes plus the one it is sending: it is blocked on a consumer that
// reads nothing yet. Then the agent writes the rest, about 28 KB, which the
// pipes hold, and exits: that output waits in the pipes.
const writerEnv = "AGENTIO_TEST_WRITER"

// writerSpamEnv makes lateWriter first start an escaped (setsid) descendant that
// holds both pipes and, once the agent is gone, writes to them until they are
// closed (it dies of SIGPIPE then).
const writerSpamEnv = "AGENTIO_TEST_WRITER_SPAM"

const writerLines = 600

func lateWriter() int {
	if os.Getenv(writerSpamEnv) != "" {
		spam := exec.Command("sh", "-c", `while kill -0 `+strconv.Itoa(os.Getpid())+` 2>/dev/null; do sleep 0.01; done; while :; do echo spam; echo spam >&2; done`)
		spam.Stdout, spam.Stderr = os.Stdout, os.Stderr
		spam.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := spam.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "spam:", err)
			return 3
		}
	}
	var out, errs strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&out, "out %d ..............................\n", i)
	}
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&errs, "err %d\n", i)
	}
	os.Stdout.WriteString(out.String())
	os.Stderr.WriteString(errs.String())
	for _, fd := range []int{1, 2} {
		for {
			n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
			if err != nil {
				fmt.Fprintln(os.Stderr, "TIOCINQ:", err)
				return 3
			}
			if n == 0 {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	for i := 0; i < writerLines; i++ {
		if i >= 20 {
			fmt.Fprintf(os.Stdout, "out %d ..............................\n", i)
		}
		if i >= 4 {
			fmt.Fprintf(os.Stderr, "err %d\n", i)
		}
	}
	return 0
}

// startWriter starts the test binary as lateWriter.
func startWriter(t *testing.T, p Process, env ...string) *ProcessConn {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Start(context.Background(), Spec{Dir: t.TempDir(), Env: append([]string{writerEnv + "=1"}, env...), Args: []string{exe}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Kill(); c.Abandon() })
	return c
}

// checkAll reports lines of the agent's missing from stdout or stderr, or out of
// order; other lines (an escaped descendant's) are left out.
func checkAll(t *testing.T, lines []Line) {
	t.Helper()
	next := map[string]int{"stdout": 0, "stderr": 0}
	for _, l := range lines {
		s := string(l.Data)
		switch {
		case l.Stream == "stdout" && strings.HasPrefix(s, "out "):
			if want := fmt.Sprintf("out %d ", next["stdout"]); !strings.HasPrefix(s, want) {
				t.Fatalf("stdout line %q, want %q...", s, want)
			}
			next["stdout"]++
		case l.Stream == "stderr" && strings.HasPrefix(s, "err "):
			if want := fmt.Sprintf("err %d", next["stderr"]); s != want {
				t.Fatalf("stderr line %q, want %q", s, want)
			}
			next["stderr"]++
		case s != "spam":
			t.Errorf("%s: unexpected line %q", l.Stream, s)
		}
	}
	for _, st := range []string{"stdout", "stderr"} {
		if next[st] != writerLines {
			t.Errorf("%s: %d of the agent's %d lines arrived", st, next[st], writerLines)
		}
	}
}

// Everything the agent wrote before it exited reaches the harness, however late
// the harness reads: here it reads nothing until two pipe graces after the exit.
// The delay is the reader's; the check is only that every line arrives.
func TestProcessLateReaderGetsAllOutput(t *testing.T) {
	t.Parallel()
	c := startWriter(t, Process{PipeGrace: time.Second})
	if ex := waitDone(t, c); ex.Code != 0 {
		t.Fatalf("exit %+v", ex)
	}
	time.Sleep(2 * time.Second)
	checkAll(t, drainAll(t, c))
}

// unsupervised runs the rest of the test with agents started directly, as in a
// program that did not call Main: escaped (setsid) descendants then outlive the
// agent. Not parallel: it changes what every launch does.
func unsupervised(t *testing.T) {
	t.Helper()
	was := supervisorAvailable
	supervisorAvailable = false
	t.Cleanup(func() { supervisorAvailable = was })
}

// An escaped descendant that holds the agent's pipes and writes to them forever
// from the agent's exit on does not keep the harness reading: the streams close,
// and every line the agent itself wrote arrives, whether the harness reads at
// once or two graces late; they close too when the harness abandons the agent. Supervised, the supervisor kills such a descendant
// (TestEscapedDaemonsKilled); here the agent is started directly.
func TestProcessEscapedWriterBounded(t *testing.T) {
	unsupervised(t)
	for _, how := range []string{"at-once", "late", "abandoned"} {
		t.Run(how, func(t *testing.T) {
			marker := newMarker(t)
			t.Cleanup(func() {
				for _, p := range marked(marker) {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			})
			c := startWriter(t, Process{PipeGrace: 200 * time.Millisecond}, writerSpamEnv+"=1", markerVar+"="+marker)
			var lines []Line
			switch how {
			case "at-once":
				lines = drainAll(t, c)
				waitDone(t, c)
			case "late":
				waitDone(t, c)
				time.Sleep(400 * time.Millisecond)
				lines = drainAll(t, c)
			case "abandoned":
				// The harness gives up on the agent: the readers discard
				// the rest, and the streams close all the same.
				waitDone(t, c)
				time.Sleep(400 * time.Millisecond)
				c.Abandon()
				drainAll(t, c)
				return
			}
			checkAll(t, lines)
		})
	}
}

// A stream ends where end found it: what was read plus what the pipe held then.
// What is written afterwards (by a descendant that outlived the agent) is not
// read, though the pipe is still open for writing; with nothing pending there
// is no end to wait for.
func TestStreamEndsAtExit(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s := newStream(r)
	if end, exact := s.end(0); end != -1 || !exact {
		t.Errorf("empty pipe: end %d (exact %v), want -1", end, exact)
	}
	before := strings.Repeat("before the exit\n", 1000)
	if _, err := w.WriteString(before); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 100)
	if _, err := io.ReadFull(s, head); err != nil {
		t.Fatal(err)
	}
	end, exact := s.end(0)
	if end != int64(len(before)) || !exact {
		t.Fatalf("end %d (exact %v), want %d", end, exact, len(before))
	}
	if _, err := w.WriteString("after the exit\n"); err != nil {
		t.Fatal(err)
	}
	s.limit(end)
	rest, err := io.ReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(head) + string(rest); got != before {
		t.Errorf("read %d bytes ending %q, want the %d written before the exit", len(got), got[max(0, len(got)-20):], len(before))
	}
	s.finish(nil)
}
