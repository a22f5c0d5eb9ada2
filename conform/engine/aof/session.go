package aof

import (
	"github.com/aopkit/aopkit/conform"

	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
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
	// Handoff, when set, makes the agent's task a delegated child: its
	// inputs/handoff.json and handoff.md are written before dispatch, as the router
	// writes them for a handoff.request.
	Handoff *Handoff
	// Fault is the engine fault to play ("" for none; Faults lists them).
	Fault string
	// DataDir, when set, is an existing data directory holding the task in
	// tasks/ready/ (the scheduler of `aopconform engine --protocol aof`): the
	// session leases that task to its assignee (AgentID when it has none) instead
	// of creating one under <Scratch>/data; Title, Body, Metadata and Handoff are
	// the task file's business.
	DataDir string
	// DispatchChildren: the executor runs every agent id, so the child tasks the
	// router accepts (handoff.request) are dispatched too, each in its turn
	// (Session.NextChild). On the agent side the executor is the agent under test
	// alone and a child assigned to another agent stays ready.
	DispatchChildren bool
	// Refused, when set, is told of every file of the data directory the
	// session refused to read (Store.Refused).
	Refused func(path, reason string)
}

// Sink receives the files a session records for the transcript: the ones the
// dispatcher writes (from "orchestrator") and the heartbeats the agent writes
// (from "agent"); stream is "file:" and the path relative to the scratch
// directory, data the file's bytes (JSON or text).
type Sink func(at time.Time, from conform.Actor, stream string, data []byte)

// Session is the dispatcher side of one agent run: the store, the router and the
// files recorded for the transcript.
type Session struct {
	Cfg      Config
	Store    *Store
	Router   *Router
	Clock    clock.Clock
	sink     Sink
	mu       sync.Mutex
	lastBeat []byte
	// lastBeatAt is when lastBeat was written (the lease time for the dispatcher's).
	lastBeatAt time.Time
	// prevExp and prevLast follow the agent's heartbeat refreshes (PollStale).
	prevExp  time.Time
	prevLast string
}

// NewSession prepares the data directory (the task in ready, then leased to the
// agent: in-progress, run.json, a first heartbeat); sink (nil: none) receives the
// files recorded for the transcript.
func NewSession(clk clock.Clock, cfg Config, sink Sink) (*Session, error) {
	if cfg.TTL <= 0 {
		cfg.TTL = spec.DefaultTTL
	}
	if cfg.Title == "" {
		cfg.Title = "Reference task"
	}
	dir := cfg.DataDir
	if dir == "" {
		dir = filepath.Join(cfg.Scratch, "data")
	}
	st, err := NewStore(dir, clk)
	if err != nil {
		return nil, err
	}
	st.Refused = cfg.Refused
	if sink == nil {
		sink = func(time.Time, conform.Actor, string, []byte) {}
	}
	s := &Session{Cfg: cfg, Store: st, Router: &Router{Store: st, Fault: cfg.Fault}, Clock: clk, sink: sink}
	if cfg.DataDir != "" {
		return s, s.lease()
	}
	body := cfg.Body
	if body == "" {
		body = "# " + cfg.Title + "\n\nDo the scripted work and report completion.\n"
	}
	t := &Task{ID: cfg.TaskID, Title: cfg.Title, Status: spec.Ready, Body: body}
	for k, v := range cfg.Metadata {
		t.SetMeta(k, v)
	}
	if err := st.Create(t); err != nil {
		return nil, err
	}
	if h := cfg.Handoff; h != nil {
		dir := filepath.Join(st.TaskDir(spec.Ready, cfg.TaskID), "inputs")
		data, _ := json.MarshalIndent(h, "", "  ")
		if err := st.writeFile(filepath.Join(dir, "handoff.json"), append(data, '\n')); err != nil {
			return nil, err
		}
		if err := st.writeFile(filepath.Join(dir, "handoff.md"), HandoffMarkdown(h)); err != nil {
			return nil, err
		}
	}
	return s, s.lease()
}

// lease dispatches the session's task (ready): the lease to its assignee (the
// configured AgentID when it names none, or on the agent side), run.json and the
// first heartbeat, recorded with the task's handoff when it has one.
func (s *Session) lease() error {
	st := s.Store
	t, err := st.Get(s.Cfg.TaskID)
	if err != nil {
		return err
	}
	if s.Cfg.DispatchChildren && t.Assignee != "" {
		s.Cfg.AgentID = t.Assignee
	}
	w, err := st.AcquireLease(s.Cfg.TaskID, s.Cfg.AgentID, s.Cfg.TTL)
	if err != nil {
		return err
	}
	if s.Router.Fault == FaultNoRunJSON {
		os.Remove(filepath.Join(st.RunDir(s.Cfg.TaskID), "run.json"))
		w = w[1:]
	}
	if s.Router.Fault == FaultRunNotRunning {
		if run, err := st.ReadRun(s.Cfg.TaskID); err == nil {
			run.Status = "leased"
			if rw, err := st.writeArtifact(s.Cfg.TaskID, "run.json", run); err == nil {
				w[0].Data = rw.Data
			}
		}
	}
	path := filepath.Join(st.TaskDir(spec.InProgress, s.Cfg.TaskID), "inputs", "handoff.json")
	if data, err := st.read(path); err == nil {
		s.recordFiles([]Written{{path, data}})
	}
	s.recordFiles(w)
	if hb, err := st.read(filepath.Join(st.RunDir(s.Cfg.TaskID), "run_heartbeat.json")); err == nil {
		s.lastBeat, s.lastBeatAt = bytes.TrimSpace(hb), s.Clock.Now()
	}
	return nil
}

// NextChild is the session for the next child task the router accepted a
// handoff.request for and that is still ready, leased to its assignee (nil when
// there is none, or when children are not dispatched).
func (s *Session) NextChild() (*Session, error) {
	if !s.Cfg.DispatchChildren || s.Router.Fault == FaultNoChildDispatch {
		return nil, nil
	}
	for _, id := range s.Router.Delegated() {
		t, err := s.Store.Get(id)
		if err != nil || t.Status != spec.Ready {
			continue
		}
		cfg := s.Cfg
		cfg.TaskID, cfg.Handoff, cfg.Metadata = id, nil, nil
		c := &Session{Cfg: cfg, Store: s.Store, Router: s.Router, Clock: s.Clock, sink: s.sink}
		return c, c.lease()
	}
	return nil, nil
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
		"AOF_TASK_FILE=" + s.Store.TaskPath(spec.InProgress, s.Cfg.TaskID),
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
		s.sink(s.Clock.Now(), conform.ActorOrchestrator, "file:"+filepath.ToSlash(rel), bytes.TrimSpace(w.Data))
	}
}

// Line routes one stdout line of the agent (the harness records the line).
func (s *Session) Line(l agentio.Line) Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.Stream != "stdout" {
		return Outcome{Kind: KindNotProtocol}
	}
	o := s.Router.Handle(l.Data)
	if l.Truncated && o.Kind == KindNotProtocol {
		o = s.Router.reject(Outcome{Reason: ReasonMessageTooLarge, Detail: "line was cut by the harness's line bound"}, "")
	}
	s.recordFiles(o.Written)
	return o
}

// Exit is the agent's end: a last look at its heartbeat, then, on a normal exit
// (code 0), the session_end hook; a crash or a kill runs no hook: the scheduler's
// stale-heartbeat recovery takes over.
func (s *Session) Exit(e agentio.Exit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observeHeartbeat()
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
// observation and now (a poll notices a write late; the write is what counts);
// when the modification time is on another clock (after now), at the file's
// lastHeartbeat if that lies in the window; else at now.
func (s *Session) observeHeartbeat() (time.Time, bool) {
	path := filepath.Join(s.Store.RunDir(s.Cfg.TaskID), "run_heartbeat.json")
	var data []byte
	var mod time.Time
	for try := 0; try < 3; try++ {
		b, err := s.Store.read(path)
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
	within := func(t time.Time) bool { return !t.After(now) && !t.Before(s.lastBeatAt) }
	var hb Heartbeat
	switch {
	case within(mod):
		at = mod
	case mod.After(now) && json.Unmarshal(data, &hb) == nil:
		// The file's time is on another clock than the harness's (virtual time
		// in a test bubble): the write's own lastHeartbeat places it, when it
		// falls into the same window.
		if last, err := parseTime(hb.LastHeartbeat); err == nil && within(last) {
			at = last
		}
	}
	s.lastBeat, s.lastBeatAt = data, at
	rel, _ := filepath.Rel(s.Cfg.Scratch, path)
	s.sink(at, conform.ActorAgent, "file:"+filepath.ToSlash(rel), data)
	return at, true
}

// staleAt is when the agent's heartbeat expires, if the task is still in progress.
func (s *Session) staleAt() (time.Time, bool) {
	t, err := s.Store.Get(s.Cfg.TaskID)
	if err != nil || t.Status != spec.InProgress {
		return time.Time{}, false
	}
	hb, err := s.Store.ReadHeartbeat(s.Cfg.TaskID)
	if err != nil {
		return time.Time{}, false
	}
	at, err := parseTime(hb.ExpiresAt)
	return at, err == nil
}

// PollStale is one look of the dispatcher at a running agent: a heartbeat the
// agent wrote since the last look goes into the transcript, then the scheduler
// polls. It reports the run stale when the scheduler reclaimed (or recovered) the
// agent's task, or when the agent refreshed its heartbeat only after the previous
// one had expired (stale even when no poll fell into the gap); expiresAt and last
// are the heartbeat's as last read.
func (s *Session) PollStale() (stale bool, expiresAt time.Time, last string) {
	s.mu.Lock()
	s.observeHeartbeat()
	if hb, err := s.Store.ReadHeartbeat(s.Cfg.TaskID); err == nil && hb.LastHeartbeat != s.prevLast {
		exp, err1 := parseTime(hb.ExpiresAt)
		at, err2 := parseTime(hb.LastHeartbeat)
		if err1 == nil && err2 == nil {
			stale = !s.prevExp.IsZero() && spec.Stale(s.prevExp, at)
			s.prevLast, s.prevExp = hb.LastHeartbeat, exp
		}
	}
	s.mu.Unlock()
	for _, act := range s.Poll() {
		if act.TaskID == s.Cfg.TaskID {
			stale = true
		}
	}
	return stale, s.prevExp, s.prevLast
}

// StaleAt is when the agent's heartbeat expires, if its task is still in
// progress (ok false otherwise: nothing left for the scheduler to recover).
func (s *Session) StaleAt() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.staleAt()
}
