package orchside

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/mockagent"
)

// Launch is one start of the agent by the orchestrator under test, as mockagent
// observed it.
type Launch struct {
	N     int // 1-based, in order of start
	Start time.Time
	PID   int
	// Env holds the AOP* variables the agent got.
	Env map[string]string
	// Files are the files of its binding the agent found at its start, by base
	// name (aof: run.json, as the scheduler left it for the live run).
	Files  map[string]string
	Events []Event
	// HarnessKilled, when set, says that the agent left no exit record because
	// the harness killed it (its clean-up after the orchestrator ended, or the
	// orchestrator's process group stopped at the deadline): no act of the
	// orchestrator under test.
	HarnessKilled conform.By
}

// Event is one observation, with the transcript record it became.
type Event struct {
	At     time.Time
	Kind   string // stdin, stdin-eof, stdout, signal, exit, alive
	Line   string
	Signal string
	Code   int
	Seq    int    // transcript record
	Key    string // message key (stdin and stdout JSON lines)
	// By is "" for what the orchestrator under test did (or the agent itself);
	// otherwise the harness's act that caused it (a signal or the end of stdin
	// after the harness stopped the orchestrator, or after it exited): never
	// evidence for or against the orchestrator.
	By conform.By
}

// maxObservationBytes bounds what is read of one observation file.
const maxObservationBytes = 64 << 20

// MaxLaunches bounds the agent launches read: an orchestrator that starts the
// agent more often is judged on its first MaxLaunches (the transcript event "launches-truncated" says so).
const MaxLaunches = 100

// readObservations reads every launch's file in dir (the first MaxLaunches),
// sorted by start; more reports whether there were more.
func readObservations(dir string) (ls []Launch, more bool, err error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, false, err
	}
	// Names sort by start time (mockagent.NewObserver).
	sort.Strings(names)
	if len(names) > MaxLaunches {
		names, more = names[:MaxLaunches], true
	}
	var out []Launch
	for _, name := range names {
		l, err := readLaunch(name)
		if err != nil {
			return nil, more, err
		}
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	for i := range out {
		out[i].N = i + 1
	}
	return out, more, nil
}

func readLaunch(name string) (Launch, error) {
	var l Launch
	f, err := safefile.Open(name, 0) // a FIFO is refused, not waited on; limitedReader bounds it
	if err != nil {
		return l, err
	}
	defer f.Close()
	sc := bufio.NewScanner(&limitedReader{f: f, n: maxObservationBytes})
	sc.Buffer(make([]byte, 0, 64*1024), 8<<20)
	for sc.Scan() {
		var o mockagent.Observation
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			// A line cut by SIGKILL mid-write is the last one; anything else is
			// not an observation file.
			continue
		}
		at, err := time.Parse(mockagent.ObservationTimeFormat, o.At)
		if err != nil {
			return l, fmt.Errorf("%s: bad time %q", filepath.Base(name), o.At)
		}
		if o.Kind == "start" {
			l.Start, l.PID, l.Env = at, o.PID, o.Env
			continue
		}
		if o.Kind == "file" {
			if l.Files == nil {
				l.Files = map[string]string{}
			}
			l.Files[filepath.Base(o.Path)] = o.Line
			continue
		}
		e := Event{At: at, Kind: o.Kind, Line: o.Line, Signal: o.Signal}
		if o.Code != nil {
			e.Code = *o.Code
		}
		l.Events = append(l.Events, e)
	}
	if err := sc.Err(); err != nil {
		return l, fmt.Errorf("%s: %v", filepath.Base(name), err)
	}
	if l.Start.IsZero() {
		return l, fmt.Errorf("%s: no start record", filepath.Base(name))
	}
	// In the order things happened: a line the agent wrote is stamped before it
	// left, and may be written to the file after the answer it got.
	sort.SliceStable(l.Events, func(i, j int) bool { return l.Events[i].At.Before(l.Events[j].At) })
	return l, nil
}

type limitedReader struct {
	f io.Reader
	n int64
}

func (r *limitedReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, fmt.Errorf("observation file over %d bytes", maxObservationBytes)
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	n, err := r.f.Read(p)
	r.n -= int64(n)
	return n, err
}

// Messages returns the launch's JSON lines of kind (stdin: what the orchestrator
// sent; stdout: what the agent sent) with key ("" = any).
func (l *Launch) Messages(kind, key string) []*Event {
	var out []*Event
	for i := range l.Events {
		e := &l.Events[i]
		if e.Kind == kind && e.Key != "" && (key == "" || e.Key == key) {
			out = append(out, e)
		}
	}
	return out
}

// Stop is how the orchestrator stopped the agent: the first SIGTERM (or SIGINT)
// or, when eof counts (aop2: EOF on stdin means stop), the end of its input,
// whichever came first; How is "" when the agent was not stopped that way.
// Killed reports an agent that left no exit record (SIGKILL) and that the
// harness did not kill. The harness's own acts (Event.By) never count.
func (l *Launch) Stop(eof bool) (at time.Time, how string, killed bool) {
	for _, e := range l.Events {
		if e.By != "" {
			continue
		}
		if (e.Kind == "signal" && (e.Signal == "SIGTERM" || e.Signal == "SIGINT")) || (eof && e.Kind == "stdin-eof") {
			if how == "" {
				at, how = e.At, e.Kind
				if e.Kind == "signal" {
					how = e.Signal
				}
			}
		}
	}
	return at, how, l.Exit() == nil && l.HarnessKilled == ""
}

// killSlack is how much later than its last observation a SIGKILLed agent may
// have died (× scale), beyond mockagent.AliveEvery: its alive ticks come late on
// a loaded machine. An agent last seen that close to the harness's first act on
// the orchestrator counts as killed by the harness.
const killSlack = time.Second

// harnessCut is when the harness first acted on the orchestrator under test:
// it signalled its process group (the scenario deadline, or the scenario over)
// or saw it exit (then the supervisor's clean-up kills what is left). zero: the
// orchestrator never ran.
func harnessCut(orch *conform.Attempt) (time.Time, conform.By) {
	var t time.Time
	var why conform.By
	for _, c := range []struct {
		t   time.Time
		why conform.By
	}{
		{orch.Terminated, conform.ByHarnessTerm},
		{orch.Killed, conform.ByHarnessKill},
		{orch.Gone, conform.ByCleanUp},
	} {
		if !c.t.IsZero() && (t.IsZero() || c.t.Before(t)) {
			t, why = c.t, c.why
		}
	}
	if orch.Timeout && why == conform.ByHarnessTerm {
		why = conform.ByDeadlineTerm
	}
	return t, why
}

// attribute marks what happened to the agents after the harness first acted on
// the orchestrator as the harness's (Event.By, Launch.HarnessKilled): a signal
// or the end of stdin the agent saw from then on, and the SIGKILL of an agent
// still alive then, are the harness's clean-up, never the orchestrator's. The
// agent's own observation of the orchestrator's end (mockagent
// --watch-orchestrator, "orchestrator-exit") is the best evidence of when that
// was: an agent that saw it outlived the orchestrator. An agent last seen close
// to the harness's first act (killSlack) without having seen it (no watch, or
// a watch outrun by the clean-up on a loaded machine) is not counted as killed
// by the orchestrator: nothing shows the orchestrator did it.
func attribute(ls []Launch, orch *conform.Attempt, scale float64) {
	if orch == nil {
		return
	}
	cut, why := harnessCut(orch)
	if scale <= 0 {
		scale = 1
	}
	slack := mockagent.AliveEvery + time.Duration(float64(killSlack)*scale)
	for i := range ls {
		l := &ls[i]
		lcut, lwhy := cut, why
		watched, exitSeen := false, false
		for _, e := range l.Events {
			switch e.Kind {
			case "orchestrator-watch":
				watched = true
			case "orchestrator-exit":
				if !exitSeen && (lcut.IsZero() || e.At.Before(lcut)) {
					lcut, lwhy = e.At, conform.ByCleanUp
				}
				exitSeen = true
			}
		}
		if lcut.IsZero() {
			continue
		}
		for j := range l.Events {
			e := &l.Events[j]
			if (e.Kind == "signal" || e.Kind == "stdin-eof") && !e.At.Before(lcut) {
				e.By = lwhy
			}
		}
		if l.Exit() != nil {
			continue
		}
		switch {
		case exitSeen:
			// It outlived the orchestrator.
			l.HarnessKilled = lwhy
		case orch.Stopped():
			// The harness stopped the orchestrator's process group: an agent
			// seen alive then (within one tick) died of it.
			if !l.LastSeen().Add(mockagent.AliveEvery).Before(lcut) && !hasSignal(l) {
				l.HarnessKilled = lwhy
			}
		case (!watched || lwhy == conform.ByCleanUp) && !hasSignal(l) && !l.LastSeen().Add(slack).Before(lcut):
			// Last seen as the orchestrator ended, and no watch to tell, or a
			// watch that never saw the orchestrator's exit: on a loaded machine
			// the clean-up's SIGKILL can come before the agent's next look.
			// Either may have killed it; nothing shows the orchestrator did,
			// so it is not credited (an orchestrator that stops its agent
			// sends SIGTERM first, which the agent records).
			l.HarnessKilled = lwhy
		}
	}
}

// Exit is the agent's exit observation (nil: it never exited by itself: killed).
func (l *Launch) Exit() *Event {
	for i := range l.Events {
		if l.Events[i].Kind == "exit" {
			return &l.Events[i]
		}
	}
	return nil
}

// LastSeen is the time of the agent's last observation: for an agent killed by
// SIGKILL, when it died (within mockagent.AliveEvery).
func (l *Launch) LastSeen() time.Time {
	t := l.Start
	for _, e := range l.Events {
		if e.At.After(t) {
			t = e.At
		}
	}
	return t
}

// Seqs lists the transcript records of the launch's events of the given kinds.
func (l *Launch) Seqs(kinds ...string) []int {
	var out []int
	for _, e := range l.Events {
		for _, k := range kinds {
			if e.Kind == k && e.Seq > 0 {
				out = append(out, e.Seq)
			}
		}
	}
	return out
}

// launchesOf returns the session's agent launches.
func launchesOf(s *conform.Session) []Launch {
	if s == nil {
		return nil
	}
	ls := FactLaunches.Get(s)
	// Who did what (the harness or the orchestrator): set by the driver, and
	// here again for sessions built otherwise (idempotent).
	attribute(ls, s.Last(), s.Scale)
	return ls
}
