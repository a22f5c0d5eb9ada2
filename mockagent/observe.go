package mockagent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aopkit/aopkit/internal/safefile"
)

// Observation is one line of an observation file (`mockagent --observe DIR`): what
// the mock agent saw and did while an orchestrator under test ran it. aopconform
// reads these files as the evidence of orchestrator-side checks
// (docs/orchestrator-side.md).
type Observation struct {
	// At is the agent's wall clock (RFC 3339, nanoseconds).
	At string `json:"at"`
	// Kind: "start" (PID, Args, Env), "stdin" (Line: one line the orchestrator
	// wrote), "stdin-eof", "stdout" (Line: one line the agent wrote), "signal"
	// (Signal), "exit" (Code), "alive" (every AliveEvery while it runs: bounds
	// when an agent that left no exit record was killed), "orchestrator-watch"
	// (the agent watches the orchestrator under test's process, PID) and
	// "orchestrator-exit" (that process has ended: from then on, whatever
	// happens to the agent is the harness's clean-up, never the orchestrator's),
	// "file" (Path, Line: a file of its binding as it found it at its start, the
	// orchestrator's doing: aof's run.json while the run is live).
	Kind   string            `json:"kind"`
	Path   string            `json:"path,omitempty"`
	Line   string            `json:"line,omitempty"`
	Signal string            `json:"signal,omitempty"`
	Code   *int              `json:"code,omitempty"`
	PID    int               `json:"pid,omitempty"`
	Args   []string          `json:"args,omitempty"`
	Env    map[string]string `json:"env,omitempty"`
}

// ObservationTimeFormat is how Observation.At is written.
const ObservationTimeFormat = time.RFC3339Nano

// AliveEvery is how often an observed agent writes an "alive" record.
const AliveEvery = 200 * time.Millisecond

// maxObservedLine bounds one observed line (longer lines are cut; the file stays
// bounded whatever the orchestrator sends).
const maxObservedLine = 1 << 20

// Observer writes one launch's observation file. Its methods are safe for
// concurrent use; a write error stops the observation silently (the agent's
// behaviour never depends on it).
type Observer struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	err  error
	done chan struct{}
	once sync.Once // closes done
	// touch: every write sets the file's modification time to the clock's
	// now (NewObserverFor).
	touch bool
	name  string
	// killed, once closed, drops every write: a killed process writes
	// nothing more (NewObserverFor).
	killed <-chan struct{}
}

// NewObserver creates a new observation file in dir: one file per launch, named by
// the start time and PID so that launches sort by start.
func NewObserver(dir string, args []string, env map[string]string) (*Observer, error) {
	return newObserver(dir, os.Getpid(), args, env, false)
}

// NewObserverFor is NewObserver for an agent that is no process of its own
// (run in a goroutine: agentio.Func): pid stands for its process id (unique
// among the observations of dir), and every write sets the file's
// modification time to time.Now, so that whoever watches the directory on
// virtual time (a testing/synctest bubble, whose clock is not the file
// system's) sees the agent's writes when they happened. Once killed is
// closed (the agent got SIGKILL) nothing more is written.
func NewObserverFor(dir string, pid int, args []string, env map[string]string, killed <-chan struct{}) (*Observer, error) {
	o, err := newObserver(dir, pid, args, env, true)
	if o != nil {
		o.killed = killed
	}
	return o, err
}

func newObserver(dir string, pid int, args []string, env map[string]string, touch bool) (*Observer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	now := time.Now()
	name := filepath.Join(dir, fmt.Sprintf("%020d-%d.jsonl", now.UnixNano(), pid))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	o := &Observer{f: f, w: bufio.NewWriter(f), done: make(chan struct{}), touch: touch, name: name}
	o.write(Observation{At: now.UTC().Format(ObservationTimeFormat), Kind: "start", PID: pid, Args: args, Env: env})
	go func() {
		t := time.NewTicker(AliveEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				o.write(Observation{Kind: "alive"})
			case <-o.done:
				return
			}
		}
	}()
	return o, nil
}

func (o *Observer) write(ob Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return
	}
	if o.killed != nil {
		select {
		case <-o.killed:
			return
		default:
		}
	}
	if ob.At == "" {
		ob.At = time.Now().UTC().Format(ObservationTimeFormat)
	}
	b, err := json.Marshal(ob)
	if err != nil {
		o.err = err
		return
	}
	if _, err := o.w.Write(append(b, '\n')); err != nil {
		o.err = err
		return
	}
	// Flushed at once: the agent may be killed at any moment.
	o.err = o.w.Flush()
	if o.touch && o.err == nil {
		now := time.Now()
		os.Chtimes(o.name, now, now)
	}
}

// maxSeenFile bounds a file recorded by Saw.
const maxSeenFile = 64 << 10

// Saw records a file as the agent found it (nothing when it cannot be read).
func (o *Observer) Saw(path string) {
	b, err := safefile.ReadFile(path, maxSeenFile)
	if err != nil {
		return
	}
	o.write(Observation{Kind: "file", Path: path, Line: string(b)})
}

// Signal records a signal the agent received.
func (o *Observer) Signal(name string) { o.write(Observation{Kind: "signal", Signal: name}) }

// Orchestrator records that the agent watches the orchestrator under test
// (process pid), or, when exited is set, that this process has ended.
func (o *Observer) Orchestrator(pid int, exited bool) {
	if exited {
		o.write(Observation{Kind: "orchestrator-exit", PID: pid})
		return
	}
	o.write(Observation{Kind: "orchestrator-watch", PID: pid})
}

// Killed ends the observation of an agent killed by SIGKILL (no exit record:
// a killed process writes nothing more).
func (o *Observer) Killed() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.once.Do(func() { close(o.done) })
	o.err = os.ErrClosed
	o.f.Close()
}

// Exit records the agent's exit code and closes the file.
func (o *Observer) Exit(code int) {
	o.once.Do(func() { close(o.done) })
	o.write(Observation{Kind: "exit", Code: &code})
	o.mu.Lock()
	defer o.mu.Unlock()
	o.err = os.ErrClosed
	o.f.Close()
}

// Stdin returns r, recording every line read from it and its end.
func (o *Observer) Stdin(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64*1024)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				o.write(Observation{Kind: "stdin", Line: clip(line)})
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				o.write(Observation{Kind: "stdin-eof"})
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// Stdout returns w, recording every complete line written to it.
func (o *Observer) Stdout(w io.Writer) io.Writer { return &lineTee{o: o, w: w} }

type lineTee struct {
	o   *Observer
	w   io.Writer
	mu  sync.Mutex
	buf []byte
}

func (t *lineTee) Write(p []byte) (int, error) {
	// Stamped before the line leaves: the orchestrator's answer to it is always
	// observed later.
	at := time.Now().UTC().Format(ObservationTimeFormat)
	if t.o.touch {
		// In-process (NewObserverFor), on virtual time, the answer may come at
		// the same instant: the line is recorded before it leaves, so that
		// the file has it first.
		t.observe(at, p)
		return t.w.Write(p)
	}
	n, err := t.w.Write(p)
	t.observe(at, p[:n])
	return n, err
}

// observe records the complete lines of what was written (at: when).
func (t *lineTee) observe(at string, p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			if len(t.buf) > maxObservedLine {
				t.o.write(Observation{At: at, Kind: "stdout", Line: clip(t.buf)})
				t.buf = t.buf[:0]
			}
			break
		}
		t.o.write(Observation{At: at, Kind: "stdout", Line: clip(t.buf[:i+1])})
		t.buf = t.buf[i+1:]
	}
}

func clip(line []byte) string {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > maxObservedLine {
		line = line[:maxObservedLine]
	}
	return string(bytes.ToValidUTF8(line, []byte("\uFFFD")))
}
