package agentio

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/internal/memhttp"
	"github.com/aopkit/aopkit/mockagent"
)

// InProcess launches a mockagent.Agent in a goroutine. Terminate and Kill cancel the
// agent's context (a real process would get SIGTERM / SIGKILL).
type InProcess struct {
	Agent *mockagent.Agent
	Fault string
	Clock clock.Clock
	// Settle, when set, is called before and after every HTTP exchange of the
	// agent with an engine serving in memory (internal/memhttp): inside a
	// testing/synctest bubble, synctest.Wait, so that the harness has handled
	// everything the agent did before the exchange goes on (the transcript's
	// order does not depend on the scheduler).
	Settle func()
}

// MaxLine bounds one line read from an agent; longer lines are cut and marked.
const MaxLine = 1 << 20

func (l InProcess) Launch(ctx context.Context, spec Spec) (Conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	env := map[string]string{}
	for _, kv := range spec.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	clk := l.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	c := &inproc{cancel: cancel, in: inW, lines: make(chan Line, 64), done: make(chan struct{})}
	var readers sync.WaitGroup
	readers.Add(2)
	go readLines(outR, "stdout", clk, c.lines, &readers)
	go readLines(errR, "stderr", clk, c.lines, &readers)
	go func() { readers.Wait(); close(c.lines) }()
	go func() {
		code := l.Agent.Run(ctx, mockagent.Env{
			Stdin: inR, Stdout: outW, Stderr: errW,
			Getenv: func(k string) string { return env[k] },
			Dir:    spec.Dir, Args: spec.Args, Clock: clk,
			HTTP: memhttp.Transport{Settle: l.Settle},
		}, l.Fault)
		outW.Close()
		errW.Close()
		inR.Close()
		c.mu.Lock()
		if ctx.Err() != nil && c.signal != "" {
			c.exit = Exit{Code: -1, Signal: c.signal}
		} else {
			c.exit = Exit{Code: code}
		}
		c.mu.Unlock()
		close(c.done)
	}()
	return c, nil
}

// readLines splits r into lines of at most MaxLine bytes and sends them on out.
func readLines(r io.Reader, stream string, clk clock.Clock, out chan<- Line, wg *sync.WaitGroup) {
	defer wg.Done()
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		data, truncated, err := ReadLine(br, MaxLine)
		if len(data) > 0 || (err == nil) {
			out <- Line{At: clk.Now(), Stream: stream, Data: data, Truncated: truncated}
		}
		if err != nil {
			io.Copy(io.Discard, r)
			return
		}
	}
}

// ReadLine reads one line from br, keeping at most max bytes of it (the rest of an
// over-long line is read and dropped, so memory stays bounded whatever the agent
// writes). It returns io.EOF after the last line.
func ReadLine(br *bufio.Reader, max int) (line []byte, truncated bool, err error) {
	for {
		frag, isPrefix, e := br.ReadLine()
		if len(line)+len(frag) > max {
			keep := max - len(line)
			if keep > 0 {
				line = append(line, frag[:keep]...)
			}
			truncated = true
		} else {
			line = append(line, frag...)
		}
		if e != nil {
			return line, truncated, e
		}
		if !isPrefix {
			return line, truncated, nil
		}
	}
}

type inproc struct {
	cancel context.CancelFunc
	in     *io.PipeWriter
	lines  chan Line
	done   chan struct{}
	mu     sync.Mutex
	exit   Exit
	signal string
}

func (c *inproc) Send(line []byte) error {
	_, err := c.in.Write(append(append([]byte(nil), line...), '\n'))
	return err
}
func (c *inproc) CloseInput() error     { return c.in.Close() }
func (c *inproc) Lines() <-chan Line    { return c.lines }
func (c *inproc) Done() <-chan struct{} { return c.done }
func (c *inproc) Exit() Exit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}
func (c *inproc) stop(sig string) error {
	c.mu.Lock()
	if c.signal == "" {
		c.signal = sig
	}
	c.mu.Unlock()
	c.cancel()
	c.in.Close()
	return nil
}
func (c *inproc) Terminate() error { return c.stop("SIGTERM") }
func (c *inproc) Kill() error      { return c.stop("SIGKILL") }
