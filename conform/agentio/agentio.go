// Package agentio is the connection between the orchestrator side (the reference
// engine, driven by the harness) and one running agent: lines in, lines out, exit.
//
// Two implementations exist: InProcess runs a mockagent.Agent in a goroutine over
// pipes (engine tests, on a fake clock), and the harness's process launcher runs a
// real binary in its own process group with bounded reads (process.go) that lose
// nothing the agent wrote before its exit, however late the harness reads.
package agentio

import (
	"context"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// Line is one line the agent wrote.
type Line struct {
	At        time.Time // when the harness read it (engine clock)
	Stream    string    // "stdout" or "stderr"
	Data      []byte    // without the trailing newline
	Truncated bool      // the line was longer than the reader's bound and was cut
}

// Exit is how the agent ended (the vocabulary's conform.Exit: the session
// records it as the launcher reports it).
type Exit = conform.Exit

// Spec says how to start an agent.
type Spec struct {
	Dir  string   // working directory (the scenario's scratch directory)
	Env  []string // extra environment, KEY=VALUE
	Args []string // command line (real processes) or mockagent arguments
	// Scale is the run's --timeout-scale: above 1 it stretches the launcher's
	// own timings as it stretches the harness's (Process: the pipe grace and
	// the send timeout); at or below 1 they stay at their defaults, which
	// guard the harness's reading and writing rather than judge the agent.
	Scale float64
}

// Conn is a running agent.
type Conn interface {
	// Send writes one line to the agent's stdin (a newline is appended).
	Send(line []byte) error
	// CloseInput closes the agent's stdin.
	CloseInput() error
	// Lines delivers what the agent writes, line by line, in order; it is closed
	// when the agent's output streams are closed.
	Lines() <-chan Line
	// Done is closed when the agent has exited; Exit tells how.
	Done() <-chan struct{}
	Exit() Exit
	// Terminate asks the agent to stop (SIGTERM to its process group).
	Terminate() error
	// Kill stops the agent and everything it started, at once.
	Kill() error
}

// connOut is the side of a Conn the harness reads, alike in every Conn: the
// agent's lines, the channel closed at its exit, and how it ended. mu guards
// exit, and the fields of the Conn that embeds it.
type connOut struct {
	lines chan Line
	done  chan struct{}
	mu    sync.Mutex
	exit  Exit
}

func (c *connOut) Lines() <-chan Line    { return c.lines }
func (c *connOut) Done() <-chan struct{} { return c.done }

// Exit tells how the agent ended; valid once Done is closed.
func (c *connOut) Exit() Exit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}

// Launcher starts agents.
type Launcher interface {
	Launch(ctx context.Context, spec Spec) (Conn, error)
}
