package aof

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/sim"
	"github.com/aopkit/aopkit/mockagent"
)

// Config describes one AOF scenario run: the task dispatched to the agent.
type Config struct {
	Scratch  string // the scenario's scratch directory; the data directory is <Scratch>/data
	Scenario string // AOPKIT_SCENARIO and the transcript session id
	TaskID   string
	AgentID  string
	Title    string
	Body     string
	TTL      time.Duration  // heartbeat TTL (DefaultTTL when 0)
	Metadata map[string]any // task metadata: delegationDepth, reviewRequired, delegateTo, ...
	Tasks    []*Task        // other tasks to create before dispatch (a parent, a sibling, ...)
	// Handoff, when set, makes the agent's task a delegated child: its
	// inputs/handoff.json and handoff.md are written before dispatch, as the router
	// writes them for a handoff.request.
	Handoff *Handoff
}

// Session is the dispatcher side of one agent run: the store, the router and the
// transcript.
type Session struct {
	Cfg      Config
	Store    *Store
	Router   *Router
	Rec      *Recorder
	Clock    clock.Clock
	Outcomes []Outcome
	Actions  []Action
	mu       sync.Mutex
	lastBeat []byte
	// lastBeatAt is when lastBeat was written (the lease time for the dispatcher's).
	lastBeatAt time.Time
}

// NewSession prepares the data directory (the task in ready, then leased to the
// agent: in-progress, run.json, a first heartbeat) and starts the transcript.
func NewSession(clk clock.Clock, cfg Config, transcript io.Writer) (*Session, error) {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Title == "" {
		cfg.Title = "Reference task"
	}
	st, err := NewStore(filepath.Join(cfg.Scratch, "data"), clk)
	if err != nil {
		return nil, err
	}
	s := &Session{Cfg: cfg, Store: st, Router: &Router{Store: st}, Clock: clk,
		Rec: &Recorder{W: transcript, Protocol: "aof", Session: cfg.Scenario}}
	for _, t := range cfg.Tasks {
		if err := st.Create(t); err != nil {
			return nil, err
		}
	}
	body := cfg.Body
	if body == "" {
		body = "# " + cfg.Title + "\n\nDo the scripted work and report completion.\n"
	}
	t := &Task{ID: cfg.TaskID, Title: cfg.Title, Status: Ready, Body: body}
	for k, v := range cfg.Metadata {
		t.SetMeta(k, v)
	}
	if err := st.Create(t); err != nil {
		return nil, err
	}
	if h := cfg.Handoff; h != nil {
		dir := filepath.Join(st.TaskDir(Ready, cfg.TaskID), "inputs")
		data, _ := json.MarshalIndent(h, "", "  ")
		if err := writeFileAtomic(filepath.Join(dir, "handoff.json"), append(data, '\n')); err != nil {
			return nil, err
		}
		if err := writeFileAtomic(filepath.Join(dir, "handoff.md"), HandoffMarkdown(h)); err != nil {
			return nil, err
		}
	}
	w, err := st.AcquireLease(cfg.TaskID, cfg.AgentID, cfg.TTL)
	if err != nil {
		return nil, err
	}
	if cfg.Handoff != nil {
		path := filepath.Join(st.TaskDir(InProgress, cfg.TaskID), "inputs", "handoff.json")
		if data, err := os.ReadFile(path); err == nil {
			s.recordFiles([]Written{{path, data}})
		}
	}
	s.recordFiles(w)
	if hb, err := os.ReadFile(filepath.Join(st.RunDir(cfg.TaskID), "run_heartbeat.json")); err == nil {
		s.lastBeat, s.lastBeatAt = bytes.TrimSpace(hb), clk.Now()
	}
	return s, nil
}

// Env is the agent's environment under the aof binding.
func (s *Session) Env() []string {
	return []string{
		"AOP_PROTOCOL=aof",
		"AOPKIT_SCRATCH=" + s.Cfg.Scratch,
		"AOPKIT_SCENARIO=" + s.Cfg.Scenario,
		"AOF_DATA_DIR=" + s.Store.Dir,
		"AOF_TASK_ID=" + s.Cfg.TaskID,
		"AOF_AGENT_ID=" + s.Cfg.AgentID,
		"AOF_TASK_FILE=" + s.Store.TaskPath(InProgress, s.Cfg.TaskID),
		"AOF_RUN_DIR=" + s.Store.RunDir(s.Cfg.TaskID) + string(filepath.Separator),
	}
}

func (s *Session) recordFiles(ws []Written) {
	for _, w := range ws {
		if !strings.HasSuffix(w.Path, ".json") {
			continue // handoff.md: the human-readable twin of handoff.json
		}
		rel, err := filepath.Rel(s.Cfg.Scratch, w.Path)
		if err != nil {
			rel = w.Path
		}
		s.Rec.Data(s.Clock.Now(), "orchestrator", "file:"+filepath.ToSlash(rel), bytes.TrimSpace(w.Data))
	}
}

// Start records agent-start.
func (s *Session) Start() {
	s.Rec.Harness(s.Clock.Now(), "agent-start", map[string]any{"taskId": s.Cfg.TaskID, "agentId": s.Cfg.AgentID})
}

// Line records one line of the agent and routes stdout lines.
func (s *Session) Line(l agentio.Line) Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.Stream != "stdout" {
		return Outcome{Kind: KindNotProtocol}
	}
	at := l.At
	if at.IsZero() {
		at = s.Clock.Now()
	}
	s.Rec.Data(at, "agent", "stdout", l.Data)
	o := s.Router.Handle(l.Data)
	if l.Truncated && o.Kind == KindNotProtocol {
		o = s.Router.reject(Outcome{Reason: ReasonMessageTooLarge, Detail: "line was cut by the harness's line bound"}, "")
	}
	s.recordFiles(o.Written)
	s.Outcomes = append(s.Outcomes, o)
	return o
}

// Exit records how the agent ended. A normal exit (code 0) runs the session_end hook;
// a crash or a kill does not: the scheduler's stale-heartbeat recovery takes over.
func (s *Session) Exit(e agentio.Exit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := map[string]any{"code": e.Code}
	if e.Signal != "" {
		d["signal"] = e.Signal
	}
	if e.Err != nil {
		d["error"] = e.Err.Error()
	}
	s.observeHeartbeat()
	s.Rec.Harness(s.Clock.Now(), "agent-exit", d)
	if e.Code == 0 && e.Signal == "" && e.Err == nil {
		s.Router.SessionEnd()
	}
}

// Poll runs one scheduler poll. Before it, a heartbeat the agent wrote since the
// last look goes into the transcript (from the agent).
func (s *Session) Poll() []Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observeHeartbeat()
	acts := s.Router.Poll()
	for _, a := range acts {
		s.recordFiles(a.Written)
	}
	s.Actions = append(s.Actions, acts...)
	return acts
}

// ObserveHeartbeat records run_heartbeat.json when the agent has rewritten it since
// the last look, and returns when the write happened (ok false: no new write).
func (s *Session) ObserveHeartbeat() (at time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.observeHeartbeat()
}

// observeHeartbeat reads run_heartbeat.json safely: a read that does not hold one
// complete JSON object (the agent is rewriting the file) is no observation and is
// retried at the next look, never recorded as an empty message. The write is
// recorded at the file's modification time when that lies between the previous
// observation and now (a poll notices a write late; the write is what counts),
// else at now.
func (s *Session) observeHeartbeat() (time.Time, bool) {
	path := filepath.Join(s.Store.RunDir(s.Cfg.TaskID), "run_heartbeat.json")
	var data []byte
	var mod time.Time
	for try := 0; try < 3; try++ {
		b, err := os.ReadFile(path)
		if err != nil {
			return time.Time{}, false
		}
		st, err := os.Stat(path)
		if err != nil {
			return time.Time{}, false
		}
		b = bytes.TrimSpace(b)
		if len(b) > 0 && b[0] == '{' && json.Valid(b) {
			data, mod = b, st.ModTime()
			break
		}
	}
	if data == nil || bytes.Equal(data, s.lastBeat) {
		return time.Time{}, false
	}
	now := s.Clock.Now()
	at := now
	if !mod.After(now) && mod.After(s.lastBeatAt) {
		at = mod
	}
	s.lastBeat, s.lastBeatAt = data, at
	rel, _ := filepath.Rel(s.Cfg.Scratch, path)
	s.Rec.Data(at, "agent", "file:"+filepath.ToSlash(rel), data)
	return at, true
}

// LeaseLost reports whether the agent's task is no longer in progress under its
// lease (the scheduler reclaimed it, or a status.update moved it on).
func (s *Session) LeaseLost() bool {
	t, err := s.Store.Get(s.Cfg.TaskID)
	if err != nil {
		return true
	}
	return t.Status != InProgress || t.Lease == nil || t.Lease.Agent != s.Cfg.AgentID
}

// staleAt is when the agent's heartbeat expires, if the task is still in progress.
func (s *Session) staleAt() (time.Time, bool) {
	t, err := s.Store.Get(s.Cfg.TaskID)
	if err != nil || t.Status != InProgress {
		return time.Time{}, false
	}
	hb, err := s.Store.ReadHeartbeat(s.Cfg.TaskID)
	if err != nil {
		return time.Time{}, false
	}
	at, err := parseTime(hb.ExpiresAt)
	return at, err == nil
}

// Finish records scenario-end with the task's final status.
func (s *Session) Finish() {
	d := map[string]any{}
	if t, err := s.Store.Get(s.Cfg.TaskID); err == nil {
		d["taskStatus"] = t.Status
	}
	s.Rec.Harness(s.Clock.Now(), "scenario-end", d)
}

// Options bound a run.
type Options struct {
	PollInterval time.Duration // scheduler poll period (TTL/5 when 0)
	Deadline     time.Duration // the run's deadline from agent start (10 × TTL when 0)
	Grace        time.Duration // SIGTERM → SIGKILL (2 s when 0)
	// NoStaleWait skips waiting, after the agent is gone, for the heartbeat of a task
	// still in progress to expire so that the scheduler recovers it.
	NoStaleWait bool
}

func (o Options) withDefaults(ttl time.Duration) Options {
	if o.PollInterval <= 0 {
		o.PollInterval = ttl / 5
		if o.PollInterval <= 0 {
			o.PollInterval = time.Second
		}
	}
	if o.Deadline <= 0 {
		o.Deadline = 10 * ttl
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	return o
}

// Drive plays the dispatcher against a running agent on clk: it routes every
// stdout line, polls the scheduler, stops the agent when its lease is lost or its
// deadline passes (SIGTERM, SIGKILL after the grace period), runs session_end on a
// normal exit and, unless told not to, waits for a stale heartbeat to be recovered.
func (s *Session) Drive(ctx context.Context, conn agentio.Conn, clk clock.Clock, opt Options) agentio.Exit {
	opt = opt.withDefaults(s.Cfg.TTL)
	s.Start()
	deadline := clk.After(opt.Deadline)
	poll := clk.After(opt.PollInterval)
	var grace <-chan time.Time
	lines := conn.Lines()
	stopping := false
	stop := func(reason string) {
		if stopping {
			return
		}
		stopping = true
		s.Rec.Harness(clk.Now(), "signal", map[string]any{"signal": "SIGTERM", "reason": reason})
		conn.Terminate()
		grace = clk.After(opt.Grace)
	}
	done := conn.Done()
	for lines != nil || done != nil {
		select {
		case l, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			if !stopping {
				s.Line(l)
			}
		case <-done:
			done = nil
		case <-poll:
			s.Poll()
			if s.LeaseLost() {
				stop("lease_lost")
			}
			poll = clk.After(opt.PollInterval)
		case <-deadline:
			s.Rec.Harness(clk.Now(), "timeout", map[string]any{"deadlineMs": opt.Deadline.Milliseconds()})
			stop("deadline")
		case <-grace:
			s.Rec.Harness(clk.Now(), "kill", nil)
			conn.Kill()
			grace = nil
		case <-ctx.Done():
			conn.Kill()
			<-conn.Done()
			lines, done = nil, nil
		}
	}
	exit := conn.Exit()
	s.Exit(exit)
	if !opt.NoStaleWait {
		if at, ok := s.staleAt(); ok {
			if d := at.Sub(clk.Now()); d > 0 {
				select {
				case <-clk.After(d):
				case <-ctx.Done():
				}
			}
			s.Poll()
		}
	}
	s.Finish()
	return exit
}

// Simulate runs a mockagent in the calling goroutine on virtual time: the agent's
// clock advances the fake clock when the agent sleeps, and the scheduler polls (and
// the deadline) fall due on the way. Every line is routed before the agent goes on,
// so the transcript is deterministic.
func (s *Session) Simulate(ctx context.Context, agent *mockagent.Agent, fault string, fake *clock.Fake, opt Options) agentio.Exit {
	opt = opt.withDefaults(s.Cfg.TTL)
	start := fake.Now()
	s.Start()
	exit := sim.Agent{Agent: agent, Fault: fault, Fake: fake, Step: opt.PollInterval, Env: s.Env(), Dir: s.Cfg.Scratch, OnLine: func(l agentio.Line) { s.Line(l) },
		Tick: func(now time.Time) string {
			s.Poll()
			if s.LeaseLost() {
				s.Rec.Harness(now, "signal", map[string]any{"signal": "SIGTERM", "reason": "lease_lost"})
				return "SIGTERM"
			}
			if !now.Before(start.Add(opt.Deadline)) {
				s.Rec.Harness(now, "timeout", map[string]any{"deadlineMs": opt.Deadline.Milliseconds()})
				s.Rec.Harness(now, "signal", map[string]any{"signal": "SIGTERM", "reason": "deadline"})
				return "SIGTERM"
			}
			return ""
		}}.Run(ctx)
	s.Exit(exit)
	if !opt.NoStaleWait {
		if at, ok := s.staleAt(); ok {
			fake.Set(at)
			s.Poll()
		}
	}
	s.Finish()
	return exit
}

// Summary is a one-line view of a session for tests and reports.
func (s *Session) Summary() string {
	st := "?"
	if t, err := s.Store.Get(s.Cfg.TaskID); err == nil {
		st = t.Status
	}
	return fmt.Sprintf("task %s: %s; events %v", s.Cfg.TaskID, st, s.Store.Events.Types())
}
