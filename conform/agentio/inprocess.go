package agentio

import (
	"bufio"
	"bytes"
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
	// IgnoreTerm plays an agent that ignores SIGTERM (a process that traps it):
	// Terminate leaves it running, only Kill stops it.
	IgnoreTerm bool
}

// MaxLine bounds one line read from an agent; longer lines are cut and marked.
const MaxLine = 1 << 20

// pipeConn is the plumbing of a Conn to a program run in a goroutine (InProcess,
// Func): its stdin a pipe, its stdout and stderr lines sent on lines in the
// program's own goroutine, in the order it wrote them (two pipes read by two
// goroutines would interleave them at random), so that in-process runs on
// virtual time are reproducible.
type pipeConn struct {
	in *io.PipeWriter
	connOut
}

// newPipeConn makes the plumbing of one launch: the program reads inR and
// writes outW and errW.
func newPipeConn(ctx context.Context, clk clock.Clock) (c *pipeConn, inR *io.PipeReader, outW, errW *lineWriter) {
	inR, inW := io.Pipe()
	c = &pipeConn{in: inW, connOut: connOut{lines: make(chan Line, 64), done: make(chan struct{})}}
	var mu sync.Mutex
	outW = &lineWriter{mu: &mu, stream: "stdout", clk: clk, out: c.lines, ctx: ctx}
	errW = &lineWriter{mu: &mu, stream: "stderr", clk: clk, out: c.lines, ctx: ctx}
	return c, inR, outW, errW
}

// ended sends what the program left unterminated and ends its streams, once it
// has returned (the caller then sets exit and closes done).
func (c *pipeConn) ended(inR *io.PipeReader, outW, errW *lineWriter) {
	outW.flush()
	errW.flush()
	close(c.lines)
	inR.Close()
}

func (c *pipeConn) Send(line []byte) error {
	_, err := c.in.Write(append(append([]byte(nil), line...), '\n'))
	return err
}
func (c *pipeConn) CloseInput() error { return c.in.Close() }

func (l InProcess) Launch(ctx context.Context, spec Spec) (Conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	env := map[string]string{}
	for _, kv := range spec.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	clk := clock.OrReal(l.Clock)
	pc, inR, outW, errW := newPipeConn(ctx, clk)
	c := &inproc{pipeConn: pc, cancel: cancel, ignoreTerm: l.IgnoreTerm}
	go func() {
		code := l.Agent.Run(ctx, mockagent.Env{
			Stdin: inR, Stdout: outW, Stderr: errW,
			Getenv: func(k string) string { return env[k] },
			Dir:    spec.Dir, Args: spec.Args, Clock: clk,
			HTTP: memhttp.Transport{Settle: l.Settle},
		}, l.Fault)
		c.ended(inR, outW, errW)
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

// lineWriter splits what an in-process agent writes on one stream into lines of
// at most MaxLine bytes (the rest of a longer line is dropped and the line marked
// truncated) and sends each on out as it is completed.
type lineWriter struct {
	mu        *sync.Mutex // shared by the agent's streams: one order for both
	stream    string
	clk       clock.Clock
	out       chan<- Line
	ctx       context.Context // once done, lines nobody reads any more are dropped
	buf       []byte
	truncated bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if keep := MaxLine - len(w.buf); keep < len(chunk) {
			if keep > 0 {
				w.buf = append(w.buf, chunk[:keep]...)
			}
			w.truncated = true
		} else {
			w.buf = append(w.buf, chunk...)
		}
		if i < 0 {
			break
		}
		w.send()
		p = p[i+1:]
	}
	return n, nil
}

// send sends the line collected so far (without a trailing \r, as a line read
// from a pipe loses its \r\n).
func (w *lineWriter) send() {
	data := append([]byte(nil), w.buf...)
	if !w.truncated {
		data = bytes.TrimSuffix(data, []byte("\r"))
	}
	select {
	case w.out <- Line{At: w.clk.Now(), Stream: w.stream, Data: data, Truncated: w.truncated}:
	case <-w.ctx.Done():
		select { // a harness still reading gets it; one that stopped does not block the agent
		case w.out <- Line{At: w.clk.Now(), Stream: w.stream, Data: data, Truncated: w.truncated}:
		default:
		}
	}
	w.buf, w.truncated = w.buf[:0], false
}

// flush sends an unterminated last line.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 || w.truncated {
		w.send()
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
	*pipeConn
	cancel     context.CancelFunc
	ignoreTerm bool
	signal     string
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
func (c *inproc) Terminate() error {
	if c.ignoreTerm {
		return nil // trapped: the agent goes on
	}
	return c.stop("SIGTERM")
}
func (c *inproc) Kill() error { return c.stop("SIGKILL") }
