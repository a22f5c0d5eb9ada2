package agentio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
)

// Default bounds of a Process launch.
const (
	// DefaultMaxOutput caps what the harness keeps of one agent's output (stdout and
	// stderr together). Beyond it the output is read and discarded, so an agent that
	// floods its pipes neither blocks nor exhausts the harness.
	DefaultMaxOutput = 64 << 20
	// DefaultPipeGrace is how long the harness keeps reading the pipes after the
	// agent exited (and its process group was killed) before it closes them.
	DefaultPipeGrace = 500 * time.Millisecond
	// DefaultSendTimeout bounds one write to the agent's stdin: an agent that does
	// not read its input cannot block the harness.
	DefaultSendTimeout = 2 * time.Second
)

// Process launches real commands: spec.Args is the command line, spec.Dir the
// working directory, spec.Env is added to the harness's environment. The agent runs
// in its own process group; Terminate and Kill signal the whole group, and once the
// agent (the group leader) has exited the rest of the group is killed, so
// grandchildren holding the pipes cannot keep the harness waiting.
type Process struct {
	Clock       clock.Clock   // stamps Line.At; clock.Real{} when nil
	MaxOutput   int64         // DefaultMaxOutput when 0
	PipeGrace   time.Duration // DefaultPipeGrace when 0
	SendTimeout time.Duration // DefaultSendTimeout when 0
	// BaseEnv is the environment the agent inherits before spec.Env; os.Environ()
	// when nil.
	BaseEnv []string
}

// ProcessConn is a running command. Besides Conn it tells its process group and how
// much output was discarded.
type ProcessConn struct {
	cmd     *exec.Cmd
	pgid    int
	stdin   *os.File
	outR    *os.File
	errR    *os.File
	lines   chan Line
	done    chan struct{}
	stop    chan struct{} // closed when the conn is abandoned: readers stop delivering
	stopped sync.Once

	mu         sync.Mutex
	exit       Exit
	signalSent string
	inClosed   bool

	kept      atomic.Int64 // bytes delivered as lines
	discarded atomic.Int64 // bytes read and dropped (over-long lines, over the cap)
	capped    atomic.Bool
	sendTO    time.Duration
}

// Launch starts the command.
func (p Process) Launch(ctx context.Context, spec Spec) (Conn, error) {
	return p.Start(ctx, spec)
}

// Start is Launch with the concrete type.
func (p Process) Start(ctx context.Context, spec Spec) (*ProcessConn, error) {
	if len(spec.Args) == 0 {
		return nil, errors.New("agentio: no command to run")
	}
	clk := p.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	maxOut := p.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	grace := p.PipeGrace
	if grace <= 0 {
		grace = DefaultPipeGrace
	}
	sendTO := p.SendTimeout
	if sendTO <= 0 {
		sendTO = DefaultSendTimeout
	}
	base := p.BaseEnv
	if base == nil {
		base = os.Environ()
	}

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("agentio: stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("agentio: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("agentio: stderr pipe: %w", err)
	}

	cmd := exec.Command(spec.Args[0], spec.Args[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(append([]string(nil), base...), spec.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("agentio: start %q: %w", spec.Args[0], err)
	}
	// The child holds its own copies now.
	closeAll(inR, outW, errW)

	c := &ProcessConn{
		cmd: cmd, pgid: cmd.Process.Pid, stdin: inW, outR: outR, errR: errR,
		lines: make(chan Line, 16), done: make(chan struct{}), stop: make(chan struct{}),
		sendTO: sendTO,
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go c.read(outR, "stdout", clk, maxOut, &readers)
	go c.read(errR, "stderr", clk, maxOut, &readers)
	readersDone := make(chan struct{})
	go func() { readers.Wait(); close(c.lines); close(readersDone) }()

	go func() {
		err := cmd.Wait()
		ex := exitOf(cmd.ProcessState, err)
		c.mu.Lock()
		c.exit = ex
		c.mu.Unlock()
		// The leader is gone: nothing of the group may outlive it.
		_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
		close(c.done)
		select {
		case <-readersDone:
		case <-time.After(grace):
			// Something outside the group (setsid) still holds the pipes.
			closeAll(outR, errR)
		}
		c.mu.Lock()
		if !c.inClosed {
			c.inClosed = true
			c.stdin.Close()
		}
		c.mu.Unlock()
	}()
	go func() {
		select {
		case <-ctx.Done():
			c.Kill()
			c.abandon()
		case <-c.done:
		}
	}()
	return c, nil
}

func (c *ProcessConn) abandon() { c.stopped.Do(func() { close(c.stop) }) }

// read splits one output stream into lines, keeping at most MaxLine bytes of a line
// and maxOut bytes overall; the rest is read and discarded.
func (c *ProcessConn) read(r *os.File, stream string, clk clock.Clock, maxOut int64, wg *sync.WaitGroup) {
	defer wg.Done()
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, 64*1024)
	for {
		if c.kept.Load() >= maxOut {
			c.capped.Store(true)
			n, _ := io.Copy(io.Discard, br)
			c.discarded.Add(n)
			return
		}
		before := cr.n
		data, truncated, err := ReadLine(br, MaxLine)
		if len(data) > 0 || err == nil {
			read := cr.n - before // approximate: buffered bytes count when read
			c.kept.Add(int64(len(data)))
			if truncated && read > int64(len(data)) {
				c.discarded.Add(read - int64(len(data)))
			}
			select {
			case c.lines <- Line{At: clk.Now(), Stream: stream, Data: data, Truncated: truncated}:
			case <-c.stop:
				n, _ := io.Copy(io.Discard, br)
				c.discarded.Add(n)
				return
			}
		}
		if err != nil {
			return
		}
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func exitOf(ps *os.ProcessState, err error) Exit {
	if ps == nil {
		return Exit{Code: -1, Err: err}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Exit{Code: -1, Signal: signalName(ws.Signal())}
	}
	return Exit{Code: ps.ExitCode()}
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return fmt.Sprintf("signal %d", int(s))
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// Send writes one line to the agent's stdin. A write that cannot finish within the
// send timeout (the agent does not read) fails instead of blocking.
func (c *ProcessConn) Send(line []byte) error {
	c.mu.Lock()
	closed := c.inClosed
	c.mu.Unlock()
	if closed {
		return errors.New("agentio: stdin is closed")
	}
	_ = c.stdin.SetWriteDeadline(time.Now().Add(c.sendTO))
	_, err := c.stdin.Write(append(append([]byte(nil), line...), '\n'))
	return err
}

// CloseInput closes the agent's stdin.
func (c *ProcessConn) CloseInput() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inClosed {
		return nil
	}
	c.inClosed = true
	return c.stdin.Close()
}

func (c *ProcessConn) Lines() <-chan Line    { return c.lines }
func (c *ProcessConn) Done() <-chan struct{} { return c.done }

// Exit tells how the agent ended; valid once Done is closed.
func (c *ProcessConn) Exit() Exit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}

// Terminate sends SIGTERM to the agent's process group.
func (c *ProcessConn) Terminate() error { return c.signal(syscall.SIGTERM, "SIGTERM") }

// Kill sends SIGKILL to the agent's process group.
func (c *ProcessConn) Kill() error { return c.signal(syscall.SIGKILL, "SIGKILL") }

func (c *ProcessConn) signal(sig syscall.Signal, name string) error {
	c.mu.Lock()
	if c.signalSent == "" || name == "SIGKILL" {
		c.signalSent = name
	}
	c.mu.Unlock()
	err := syscall.Kill(-c.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}

// Pgid is the agent's process group id.
func (c *ProcessConn) Pgid() int { return c.pgid }

// Discarded reports how many bytes of output were read and dropped, and whether the
// total output cap was reached.
func (c *ProcessConn) Discarded() (bytes int64, capped bool) {
	return c.discarded.Load(), c.capped.Load()
}

// Abandon stops delivering lines: the readers drain and discard what is left. Call
// it when the harness no longer reads Lines, so no reader blocks forever.
func (c *ProcessConn) Abandon() { c.abandon() }
