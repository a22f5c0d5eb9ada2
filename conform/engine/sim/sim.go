// Package sim runs a mockagent in the calling goroutine on virtual time, for the
// engines' Simulate functions: the agent's sleeps advance a fake clock, the engine's
// Tick runs at every step on the way, and every line the agent writes is handed over
// before the agent goes on, so transcripts are deterministic.
package sim

import (
	"bytes"
	"context"
	"io"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/mockagent"
)

// Agent is one simulated run of a mockagent.
type Agent struct {
	Agent *mockagent.Agent
	Fault string
	Fake  *clock.Fake
	// Step is how often Tick runs while the agent sleeps.
	Step time.Duration
	// Tick returns "" to go on, or the signal that stops the agent ("SIGTERM").
	Tick   func(now time.Time) string
	Env    []string // KEY=VALUE, as the harness would set them
	Dir    string
	Stdin  []byte
	OnLine func(agentio.Line) // each stdout line, while the agent runs
}

// Run plays the agent to its end and says how it ended.
func (a Agent) Run(ctx context.Context) agentio.Exit {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	signal := ""
	sc := &Clock{Fake: a.Fake, Step: a.Step}
	if a.Tick != nil {
		sc.Hook = func(now time.Time) bool {
			if sig := a.Tick(now); sig != "" {
				signal = sig
				cancel()
				return false
			}
			return true
		}
	}
	env := map[string]string{}
	for _, kv := range a.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	out := &LineWriter{Fn: func(b []byte) {
		if ctx.Err() == nil && a.OnLine != nil {
			a.OnLine(agentio.Line{At: a.Fake.Now(), Stream: "stdout", Data: b})
		}
	}}
	code := a.Agent.Run(ctx, mockagent.Env{Stdin: bytes.NewReader(a.Stdin), Stdout: out, Stderr: io.Discard,
		Getenv: func(k string) string { return env[k] }, Dir: a.Dir, Clock: sc}, a.Fault)
	out.Flush()
	if signal != "" {
		return agentio.Exit{Code: -1, Signal: signal}
	}
	return agentio.Exit{Code: code}
}

// Harnesser records harness events (the engines' transcript recorders do).
type Harnesser interface {
	Harness(at time.Time, event string, detail map[string]any)
}

// Deadline is a Tick that stops the agent with SIGTERM once d has passed since
// start, recording the timeout and the signal.
func Deadline(rec Harnesser, start time.Time, d time.Duration) func(time.Time) string {
	return func(now time.Time) string {
		if now.Before(start.Add(d)) {
			return ""
		}
		rec.Harness(now, "timeout", map[string]any{"deadlineMs": d.Milliseconds()})
		rec.Harness(now, "signal", map[string]any{"signal": "SIGTERM"})
		return "SIGTERM"
	}
}

// Clock is the virtual clock of Agent.Run: After and Sleep move the fake clock
// forward at once, calling Hook at every Step boundary on the way; when Hook returns
// false, time stops (the agent has been stopped).
type Clock struct {
	Fake    *clock.Fake
	Step    time.Duration
	Hook    func(now time.Time) bool
	next    time.Time
	stopped bool
}

func (c *Clock) Now() time.Time { return c.Fake.Now() }

func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.advance(d)
	ch := make(chan time.Time, 1)
	ch <- c.Fake.Now()
	return ch
}

func (c *Clock) Sleep(d time.Duration) { c.advance(d) }

func (c *Clock) advance(d time.Duration) {
	if c.stopped || d <= 0 {
		return
	}
	target := c.Fake.Now().Add(d)
	if c.Step > 0 && c.Hook != nil {
		if c.next.IsZero() {
			c.next = c.Fake.Now().Add(c.Step)
		}
		for !c.next.After(target) {
			c.Fake.Set(c.next)
			c.next = c.next.Add(c.Step)
			if !c.Hook(c.Fake.Now()) {
				c.stopped = true
				return
			}
		}
	}
	c.Fake.Set(target)
}

// LineWriter splits what is written into lines and hands each to Fn.
type LineWriter struct {
	Fn  func([]byte)
	buf []byte
}

func (w *LineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := append([]byte(nil), w.buf[:i]...)
		w.buf = w.buf[i+1:]
		w.Fn(bytes.TrimSuffix(line, []byte("\r")))
	}
	if len(w.buf) > agentio.MaxLine {
		w.Fn(w.buf[:agentio.MaxLine])
		w.buf = nil
	}
	return len(p), nil
}

// Flush hands over a last unterminated line.
func (w *LineWriter) Flush() {
	if len(w.buf) > 0 {
		w.Fn(w.buf)
		w.buf = nil
	}
}
