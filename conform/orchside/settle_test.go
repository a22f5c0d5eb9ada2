package orchside

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/harness"
)

// daemon is an orchestrator under test on virtual time that never exits by
// itself: its processes compute until busyUntil after its start, then sleep.
type daemon struct{ busyUntil time.Duration }

func (d daemon) Launch(context.Context, agentio.Spec) (agentio.Conn, error) {
	return &daemonConn{d: d, start: time.Now(), lines: make(chan agentio.Line), done: make(chan struct{})}, nil
}

type daemonConn struct {
	d     daemon
	start time.Time
	lines chan agentio.Line
	done  chan struct{}
	once  sync.Once
}

func (c *daemonConn) Send([]byte) error          { return nil }
func (c *daemonConn) CloseInput() error          { return nil }
func (c *daemonConn) Lines() <-chan agentio.Line { return c.lines }
func (c *daemonConn) Done() <-chan struct{}      { return c.done }
func (c *daemonConn) Exit() agentio.Exit         { return agentio.Exit{Code: -1, Signal: "SIGTERM"} }
func (c *daemonConn) Terminate() error           { return c.Kill() }
func (c *daemonConn) Kill() error {
	c.once.Do(func() { close(c.lines); close(c.done) })
	return nil
}
func (c *daemonConn) Asleep() (bool, bool) { return time.Since(c.start) >= c.d.busyUntil, true }

// TestSettle: a daemon orchestrator whose one agent ended is stopped by the
// harness once the scenario is decided (2 s of quiet), not at the deadline; its
// timers start at its agent's launch (the start-up allowance); and while its
// processes still compute, the quiet does not count.
func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		name string
		busy time.Duration
	}{
		{"asleep", 0},
		{"busy for 5 s", 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				scratch := t.TempDir()
				obs := filepath.Join(scratch, "observe")
				os.MkdirAll(obs, 0o755)
				sc := &conform.Scenario{ID: "orch-settle", Protocol: "orchmsg", Deadline: conform.Duration(60 * time.Second)}
				h := harness.New(context.Background(), harness.Config{Scenario: sc, Launcher: daemon{busyUntil: tc.busy}, Command: []string{"orch"}, Scale: 1, Scratch: scratch})
				a, err := h.Launch(nil)
				if err != nil {
					t.Fatal(err)
				}
				// Its agent: launched 300 ms after it, ended at once.
				launched := time.Now().Add(300 * time.Millisecond)
				name := filepath.Join(obs, fmt.Sprintf("%020d-1.jsonl", launched.UnixNano()))
				os.WriteFile(name, []byte(`{"at":"x","kind":"start"}`+"\n"+`{"at":"x","kind":"exit","code":0}`+"\n"), 0o644)
				os.Chtimes(name, launched, launched)
				st := newSettler(sc, obs)
				if err := h.End(a.Run(harness.Handler{Monitor: st.monitor(h)})); err != nil {
					t.Fatal(err)
				}
				att := a.Attempt()
				if att.Timeout || att.Decided.IsZero() {
					t.Fatalf("not stopped as decided (timeout %v)", att.Timeout)
				}
				if att.AliveBy != "first-agent-launch" || !att.Alive.Equal(launched) {
					t.Errorf("timers started by %q at %v, want first-agent-launch at %v", att.AliveBy, att.Alive.Sub(att.Start), launched.Sub(att.Start))
				}
				from := launched
				if b := att.Start.Add(tc.busy); b.After(from) {
					from = b
				}
				if d := att.Decided.Sub(from); d < settleDone-settlePoll || d > settleDone+2*settlePoll {
					t.Errorf("decided %v after its last activity, want %v", d, settleDone)
				}
			})
		})
	}
}
