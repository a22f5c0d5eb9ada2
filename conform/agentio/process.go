package agentio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
)

// Default bounds of a Process launch.
const (
	// DefaultMaxOutput caps what the harness keeps of one agent's stdout. Beyond it
	// the output is read and discarded, so an agent that floods its pipes neither
	// blocks nor exhausts the harness.
	DefaultMaxOutput = 64 << 20
	// DefaultMaxStderr caps what the harness keeps of one agent's stderr: a budget of
	// its own, so that an agent that logs a lot never loses protocol output.
	DefaultMaxStderr = 4 << 20
	// DefaultPipeGrace is how long the harness reads what is written to the
	// pipes after the agent exited (and its process group was killed: output of
	// a descendant that escaped it) before it closes them. What the agent wrote
	// before its exit is read however late (see Process).
	DefaultPipeGrace = 500 * time.Millisecond
	// DefaultSendTimeout bounds one write to the agent's stdin: an agent that does
	// not read its input cannot block the harness.
	DefaultSendTimeout = 2 * time.Second
)

// Process launches real commands: spec.Args is the command line, spec.Dir the
// working (scratch) directory, spec.Env the binding's variables. The agent runs in
// its own process group; Terminate and Kill signal the whole group.
//
// When the program called Main, every agent runs below a supervisor (see
// supervise_linux.go) that kills everything the agent started once it has exited,
// setsid daemons included, dies with the harness, and confines writes to spec.Dir
// (Landlock) or reports writes outside it. Without Main the agent is started
// directly: the rest of its group is killed when it exits, and it gets SIGKILL
// when the harness dies.
//
// Output. Everything the agent wrote before it exited reaches Lines, however
// late the harness reads (its readers wait on Lines meanwhile, and the rest
// waits in the pipes): when the process exits, each pipe's end is noted, what
// its reader has read plus what the pipe holds (FIONREAD), and after the pipe
// grace the reader reads up to there, gets EOF, and the pipe is closed. What is
// written after the exit, by something that outlived the agent and holds its
// pipes, is read only within the grace: never past it, so it cannot keep the
// harness reading nor change what it saw of the agent. Supervised, the process
// that exits is the supervisor, once the agent has exited and it has killed
// what the agent started: nothing writes to the pipes then, and the end is all
// there is, what a harness reading at once would have read. Off Linux (no
// FIONREAD) the pipes are closed after the grace.
type Process struct {
	Clock       clock.Clock   // stamps Line.At; clock.Real{} when nil
	MaxOutput   int64         // stdout bytes kept; DefaultMaxOutput when 0
	MaxStderr   int64         // stderr bytes kept; DefaultMaxStderr when 0
	PipeGrace   time.Duration // DefaultPipeGrace when 0
	SendTimeout time.Duration // DefaultSendTimeout when 0
	// BaseEnv, when not nil, is the environment the agent gets before spec.Env.
	// When nil the agent gets AgentEnv: an allowlist of the harness's environment
	// (PATH, locale, TZ and PassEnv), HOME and TMPDIR inside spec.Dir.
	BaseEnv []string
	PassEnv []string // names of the harness's variables passed on (--pass-env)
	// NoConfine turns the confiner off (no Landlock, no limits, capabilities
	// kept); detection of writes outside spec.Dir stays.
	NoConfine bool
	// Policy is what the agent may read, write, bind and use (the confiner's).
	Policy Policy
}

// ProcessConn is a running command. Besides Conn it tells its process group and how
// much output was discarded.
type ProcessConn struct {
	cmd     *exec.Cmd
	pgid    int
	stdin   *os.File
	out     *stream       // stdout's read end
	errs    *stream       // stderr's read end
	stop    chan struct{} // closed when the conn is abandoned: readers stop delivering
	stopped sync.Once

	connOut    // lines, done, and exit and the fields below under mu
	signalSent string
	inClosed   bool

	kept      [2]atomic.Int64 // bytes delivered as lines: stdout, stderr
	discarded atomic.Int64    // bytes read and dropped (over-long lines, over the cap)
	capped    atomic.Bool     // stdout's cap was reached
	errCapped atomic.Bool     // stderr's cap was reached
	sendTO    time.Duration
	grace     time.Duration // how long the pipes are read after the exit

	// Supervised launches only.
	supervisor *os.Process
	contained  string   // how writes are confined ("landlock-abi-N", "none: ...")
	measures   []string // the confiner's "enforced ..." and "missing ..." lines
	escapes    []string // files held open for writing outside the scratch directory
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
	clk := clock.OrReal(p.Clock)
	maxOut, maxErr := p.MaxOutput, p.MaxStderr
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	if maxErr <= 0 {
		maxErr = DefaultMaxStderr
	}
	grace := p.PipeGrace
	if grace <= 0 {
		grace = DefaultPipeGrace
	}
	sendTO := p.SendTimeout
	if sendTO <= 0 {
		sendTO = DefaultSendTimeout
	}
	if spec.Scale > 1 {
		grace = time.Duration(float64(grace) * spec.Scale)
		sendTO = time.Duration(float64(sendTO) * spec.Scale)
	}
	var env []string
	if p.BaseEnv != nil {
		env = append(append([]string(nil), p.BaseEnv...), spec.Env...)
	} else {
		env = AgentEnv(os.Environ(), p.PassEnv, spec.Dir, spec.Env)
	}

	var files []*os.File
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("agentio: stdin pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll(files...)
		return nil, fmt.Errorf("agentio: stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll(files...)
		return nil, fmt.Errorf("agentio: stderr pipe: %w", err)
	}

	sup, err := newLaunch(spec, env, !p.NoConfine, p.Policy)
	if err != nil {
		closeAll(files...)
		return nil, err
	}
	cmd := sup.cmd
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := startOnLauncherThread(cmd); err != nil {
		sup.abort()
		closeAll(files...)
		return nil, fmt.Errorf("agentio: start %q: %w", spec.Args[0], err)
	}
	// The child holds its own copies now.
	closeAll(inR, outW, errW)
	pgid, err := sup.started()
	if err != nil {
		closeAll(inW, outR, errR)
		_ = cmd.Wait()
		return nil, fmt.Errorf("agentio: start %q: %w", spec.Args[0], err)
	}

	c := &ProcessConn{
		cmd: cmd, pgid: pgid, stdin: inW, out: newStream(outR), errs: newStream(errR),
		connOut: connOut{lines: make(chan Line, 16), done: make(chan struct{})}, stop: make(chan struct{}),
		sendTO: sendTO, grace: grace, contained: sup.contained, measures: sup.measures,
	}
	if sup.status != nil {
		c.supervisor = cmd.Process
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go c.read(c.out, "stdout", clk, 0, maxOut, &c.capped, &readers)
	go c.read(c.errs, "stderr", clk, 1, maxErr, &c.errCapped, &readers)
	readersDone := make(chan struct{})
	go func() { readers.Wait(); close(c.lines); close(readersDone) }()

	go func() {
		err := cmd.Wait()
		// Where each stream ends: what the process under test wrote before
		// it exited. Supervised, cmd is the supervisor, which exits once the
		// agent has exited and it has killed everything the agent started, so
		// nothing writes to the pipes any more; direct, the rest of the
		// group is killed just below.
		outEnd, outOK := c.out.end(0)
		errEnd, errOK := c.errs.end(0)
		var ex Exit
		var escapes []string
		if sup.status != nil {
			ex, escapes = sup.finish(cmd.ProcessState, err)
		} else {
			ex = exitOf(cmd.ProcessState, err)
			// The leader is gone: nothing of the group may outlive it.
			_ = syscall.Kill(-c.pgid, syscall.SIGKILL)
		}
		c.mu.Lock()
		c.exit, c.escapes = ex, escapes
		c.mu.Unlock()
		close(c.done)
		graceOver := time.After(grace)
		// A reader that was in the middle of a read: counted once it is done
		// (Done is not held back for it).
		if !outOK {
			outEnd, _ = c.out.end(grace)
		}
		if !errOK {
			errEnd, _ = c.errs.end(grace)
		}
		select {
		case <-readersDone:
		case <-graceOver:
			// Something outside the group (setsid) still holds the pipes:
			// what it writes from now on is not read. What the agent wrote
			// before its exit is, however late the harness reads (its
			// readers wait on the Lines channel): each stream ends there.
			c.out.limit(outEnd)
			c.errs.limit(errEnd)
		}
		c.mu.Lock()
		if !c.inClosed {
			c.inClosed = true
			c.stdin.Close()
		}
		c.mu.Unlock()
		c.out.finish(c.stop)
		c.errs.finish(c.stop)
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
// and max bytes of the stream (its own budget: kept[k]); the rest is read and
// discarded.
func (c *ProcessConn) read(cr *stream, stream string, clk clock.Clock, k int, max int64, capped *atomic.Bool, wg *sync.WaitGroup) {
	defer wg.Done()
	defer close(cr.done)
	br := bufio.NewReaderSize(cr, 64*1024)
	for {
		if c.kept[k].Load() >= max {
			capped.Store(true)
			n, _ := io.Copy(io.Discard, br)
			c.discarded.Add(n)
			return
		}
		before := cr.n.Load()
		data, truncated, err := ReadLine(br, MaxLine)
		if len(data) > 0 || err == nil {
			read := cr.n.Load() - before // approximate: buffered bytes count when read
			c.kept[k].Add(int64(len(data)))
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

// stream is the read end of one of the agent's output pipes, as its reader
// reads it: it counts the bytes read, and can be told where the stream ends.
type stream struct {
	f *os.File
	n atomic.Int64 // bytes read from the pipe (only the reader adds)
	// seq is odd while a read is under way: a read's bytes have left the pipe
	// before n counts them.
	seq atomic.Uint64
	// endAt is the byte offset at which the stream ends (-1: none): Read
	// returns io.EOF there and drops what lies beyond, written after the
	// agent's exit.
	endAt    atomic.Int64
	progress chan struct{} // a read ended (capacity 1)
	done     chan struct{} // closed when the reader has returned
}

func newStream(f *os.File) *stream {
	s := &stream{f: f, progress: make(chan struct{}, 1), done: make(chan struct{})}
	s.endAt.Store(-1)
	return s
}

func (s *stream) Read(p []byte) (int, error) {
	at := s.n.Load()
	if end := s.endAt.Load(); end >= 0 {
		if at >= end {
			return 0, io.EOF
		}
		// Not a byte past the end leaves the pipe.
		p = p[:min(int64(len(p)), end-at)]
	}
	s.seq.Add(1)
	n, err := s.f.Read(p)
	if end := s.endAt.Load(); end >= 0 && at+int64(n) >= end {
		// The end was set during the read: what it took past the end was
		// written after the agent's exit.
		n, err = int(max(end-at, 0)), io.EOF
	}
	s.n.Add(int64(n))
	s.seq.Add(1)
	select {
	case s.progress <- struct{}{}:
	default:
	}
	return n, err
}

// end tells where the stream ends if nothing more is written to it: the bytes
// read so far plus those pending in the pipe. -1 when nothing is pending (every
// byte written has been read, or is being read) or the pipe cannot tell (no
// FIONREAD: then the stream is closed after the grace, as off Linux). The count
// is taken while no read is under way, so that no byte is counted twice or not
// at all; exact is false when the reader was in the middle of a read all along
// (a few yields, then up to wait): the end is then an overestimate by at most
// one read.
func (s *stream) end(wait time.Duration) (end int64, exact bool) {
	deadline := time.Now().Add(wait)
	for try := 0; ; try++ {
		s1 := s.seq.Load()
		pending, ok := pipePending(s.f)
		read := s.n.Load()
		s2 := s.seq.Load()
		switch {
		case !ok || pending == 0:
			return -1, true
		case s1 == s2 && s1%2 == 0:
			return read + int64(pending), true
		case try >= 10 && !time.Now().Before(deadline):
			return read + int64(pending) + readSize, false
		}
		if try < 10 {
			runtime.Gosched()
		} else {
			time.Sleep(time.Millisecond)
		}
	}
}

// readSize bounds one read of a stream (the reader's buffer).
const readSize = 64 * 1024

// limit ends the stream at end (see end) or at what has been read already,
// whichever is further: beyond it nothing is read.
func (s *stream) limit(end int64) {
	if end < 0 {
		// Nothing was pending at the exit (or no telling): close now, as
		// before. A read under way keeps its bytes, and the reader
		// delivers what it holds.
		s.f.Close()
		return
	}
	s.endAt.Store(max(end, s.n.Load()))
}

// finish closes the read end once the reader has returned, has read up to the
// stream's end, or the pipe is empty (everything written was read: the rest
// came after the exit), or when the conn is abandoned (nobody reads: the
// reader drains and discards). Without an end it waits for the reader.
func (s *stream) finish(abandoned <-chan struct{}) {
	defer s.f.Close()
	for {
		if end := s.endAt.Load(); end >= 0 {
			if s.n.Load() >= end {
				return
			}
			if p, ok := pipePending(s.f); ok && p == 0 {
				return
			}
		}
		select {
		case <-s.done:
			return
		case <-abandoned:
			return
		case <-s.progress:
		}
	}
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

// Terminate sends SIGTERM to the agent's process group.
func (c *ProcessConn) Terminate() error { return c.signal(syscall.SIGTERM, "SIGTERM") }

// Kill sends SIGKILL to the agent's process group and has the supervisor kill
// everything else the agent started.
func (c *ProcessConn) Kill() error {
	if c.supervisor != nil {
		// The supervisor looks for writes outside scratch first, then kills.
		c.mu.Lock()
		c.signalSent = "SIGKILL"
		c.mu.Unlock()
		if err := c.supervisor.Signal(syscall.SIGTERM); err == nil {
			return nil
		}
	}
	return c.signal(syscall.SIGKILL, "SIGKILL")
}

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

// Discarded reports how many bytes of output were read and dropped, and whether
// stdout's cap was reached.
func (c *ProcessConn) Discarded() (bytes int64, capped bool) {
	return c.discarded.Load(), c.capped.Load()
}

// StderrCapped reports whether stderr's own cap was reached.
func (c *ProcessConn) StderrCapped() bool { return c.errCapped.Load() }

// Containment tells how the agent's writes were confined ("landlock-abi-N", or
// "none: REASON") and, once Done is closed, the files outside the scratch directory
// its processes were seen holding open for writing (only looked for when Landlock
// did not confine it).
func (c *ProcessConn) Containment() (mode string, escapes []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.contained, append([]string(nil), c.escapes...)
}

// Abandon stops delivering lines: the readers drain and discard what is left. Call
// it when the harness no longer reads Lines, so no reader blocks forever.
func (c *ProcessConn) Abandon() { c.abandon() }

// Measures lists what the confiner enforced on this machine ("enforced WHAT") and
// what it could not ("missing WHAT: WHY"), in the order it applied them.
func (c *ProcessConn) Measures() []string {
	return append([]string(nil), c.measures...)
}
