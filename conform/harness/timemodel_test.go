package harness

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
)

// silentAgent is a scripted agent for the time model, on virtual time: it reads
// its input readAfter after its start, sleeps (its processes asleep, as /proc
// would show) except while computing before busyUntil, and writes its first line
// speakAfter after its start, then exits.
type silentAgent struct {
	readAfter, busyUntil, speakAfter time.Duration
	never                            bool // never reads its input
}

func (s silentAgent) Launch(ctx context.Context, _ agentio.Spec) (agentio.Conn, error) {
	c := &silentConn{agent: s, start: time.Now(), lines: make(chan agentio.Line, 1), done: make(chan struct{}), stop: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer close(c.lines)
		select {
		case <-time.After(s.speakAfter):
			c.lines <- agentio.Line{At: time.Now(), Stream: "stdout", Data: []byte(`{"hello":1}`)}
		case <-c.stop:
		}
	}()
	return c, nil
}

type silentConn struct {
	agent    silentAgent
	start    time.Time
	mu       sync.Mutex
	unread   int
	lines    chan agentio.Line
	done     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
}

func (c *silentConn) Send(line []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unread += len(line) + 1
	return nil
}

// InputPending is what FIONREAD tells of a real agent's stdin.
func (c *silentConn) InputPending() (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.agent.never && time.Since(c.start) >= c.agent.readAfter {
		c.unread = 0
	}
	return c.unread, true
}

// Asleep is what /proc tells of a real agent's processes.
func (c *silentConn) Asleep() (bool, bool) { return time.Since(c.start) >= c.agent.busyUntil, true }

func (c *silentConn) CloseInput() error          { return nil }
func (c *silentConn) Lines() <-chan agentio.Line { return c.lines }
func (c *silentConn) Done() <-chan struct{}      { return c.done }
func (c *silentConn) Exit() agentio.Exit         { return agentio.Exit{} }
func (c *silentConn) Terminate() error           { return c.Kill() }
func (c *silentConn) Kill() error                { c.stopOnce.Do(func() { close(c.stop) }); return nil }

// TestTimersStart: where a silent agent's timers start, at --timeout-scale 2. An
// agent that read its task and sleeps is at work: its timers start then, with no
// grace (a grace stretched by the scale would hide a silence that the scaled
// heartbeat limit must catch: aop2.py bug-no-heartbeat at --timeout-scale 2). One
// that sleeps before it reads its task is still starting (slow-start) and keeps
// the first-output grace.
func TestTimersStart(t *testing.T) {
	const scale = 2
	grace := time.Duration(scale * float64(conform.FirstOutputGrace))
	for _, tc := range []struct {
		name  string
		agent silentAgent
		by    conform.LifeSign
		at    time.Duration // Alive − Start
	}{
		// Reads its task at once and sleeps 6 s without a word: timed from the
		// second look that sees it asleep with its task read.
		{"reads then sleeps", silentAgent{speakAfter: 6 * time.Second}, "idle-after-input", idlePoll},
		// Sleeps 2 s before it reads its task (a slow start), then answers at once.
		{"slow start", silentAgent{readAfter: 2 * time.Second, speakAfter: 2*time.Second + 5*time.Millisecond}, "first-output", 2*time.Second + 5*time.Millisecond},
		// Reads its task, computes for 3 s, then sleeps silent: timed once asleep.
		{"reads, computes, sleeps", silentAgent{busyUntil: 3 * time.Second, speakAfter: 10 * time.Second}, "idle-after-input", 3*time.Second + idlePoll},
		// Never reads its input and sleeps: start-up over, then the grace.
		{"never reads", silentAgent{never: true, speakAfter: 20 * time.Second}, "idle-after-start-up", idlePoll + grace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sc := &conform.Scenario{ID: "time-model", Protocol: "aop2", Deadline: conform.Duration(60 * time.Second)}
				h := New(context.Background(), Config{Scenario: sc, Launcher: tc.agent, Command: []string{"agent"}, Scale: scale, Scratch: t.TempDir()})
				a, err := h.Launch(nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := a.Send([]byte(`{"task":1}`)); err != nil {
					t.Fatal(err)
				}
				if err := h.End(a.Run(Handler{})); err != nil {
					t.Fatal(err)
				}
				att := a.Attempt()
				if got := att.Alive.Sub(att.Start); att.AliveBy != tc.by || got != tc.at {
					t.Errorf("timers started %v after the start by %q, want %v by %q", got, att.AliveBy, tc.at, tc.by)
				}
			})
		})
	}
}
