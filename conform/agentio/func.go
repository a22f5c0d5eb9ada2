package agentio

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/aopkit/aopkit/conform/engine/clock"
)

// Func launches a program that runs in a goroutine, as InProcess launches
// mockagent: the in-process stand-in for a command other than the reference
// agent alone (cmd/aopconform's tests play the reference engine as the
// orchestrator under test this way, and the agent command it launches), on the
// launcher's clock (inside a testing/synctest bubble: virtual time).
//
// Signals are modelled as a process sees them: Terminate (SIGTERM) closes
// Program.Term and leaves the program running, as a process that traps SIGTERM
// goes on until it decides to exit (a program that does not trap it returns at
// once with Exit{Code: -1, Signal: "SIGTERM"}); Kill (SIGKILL) cancels the
// program's context and the exit is SIGKILL whatever Run returns. There is no
// process group, no confinement and no sandbox: what a launch of Process
// enforces on the operating system is not there.
type Func struct {
	// Run plays the program until it ends, and returns how it ended. It must
	// return once ctx is done.
	Run   func(ctx context.Context, p Program) Exit
	Clock clock.Clock
}

// Program is what a program launched by Func sees of its process.
type Program struct {
	Spec   Spec // the launch: its working directory, environment and arguments
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Term is closed when the program gets SIGTERM (Conn.Terminate).
	Term <-chan struct{}
	// PID stands for its process id: unique among the programs of this
	// process, never a real process's.
	PID int
}

// nextPID numbers the programs Func launches (above any real PID limit's
// default, so that they never look like a real process's, and of one width,
// so that names holding them sort as numbers do).
var nextPID atomic.Int64

func init() { nextPID.Store(8_000_000) }

func (l Func) Launch(ctx context.Context, spec Spec) (Conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	pc, inR, outW, errW := newPipeConn(ctx, clock.OrReal(l.Clock))
	term := make(chan struct{})
	c := &funcConn{pipeConn: pc, cancel: cancel, term: term}
	go func() {
		exit := l.Run(ctx, Program{Spec: spec, Stdin: inR, Stdout: outW, Stderr: errW, Term: term, PID: int(nextPID.Add(1))})
		c.ended(inR, outW, errW)
		c.mu.Lock()
		if c.killed {
			exit = Exit{Code: -1, Signal: "SIGKILL"}
		}
		c.exit = exit
		c.mu.Unlock()
		cancel()
		close(c.done)
	}()
	return c, nil
}

type funcConn struct {
	*pipeConn
	cancel context.CancelFunc
	term   chan struct{}
	termed bool
	killed bool
}

func (c *funcConn) Terminate() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.termed {
		c.termed = true
		close(c.term)
	}
	return nil
}

func (c *funcConn) Kill() error {
	select {
	case <-c.done:
		return nil // a process that has exited gets no signal
	default:
	}
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	c.cancel() // its stdin stays open: a killed process sees no end of input
	return nil
}
