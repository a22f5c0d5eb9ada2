package aof

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/harness"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// AgentID is the agent id the dispatcher leases the task to (AOF_AGENT_ID).
const AgentID = "agent-under-test"

// Key names an AOF envelope by its type (bare JSON or after the AOF/1 prefix).
func Key(r *conform.Record) string {
	env := EnvelopeOf(r)
	if env == nil {
		return ""
	}
	return env.Type.V
}

// EnvelopeOf decodes a record as an AOF envelope (nil when it is none: no
// JSON object, or its protocol is not "aof").
func EnvelopeOf(r *conform.Record) *spec.Envelope {
	var b []byte
	switch {
	case r.Msg != nil:
		b = r.Msg
	case r.Text != nil && strings.HasPrefix(strings.TrimSpace(*r.Text), spec.Prefix):
		b = []byte(strings.TrimPrefix(strings.TrimSpace(*r.Text), spec.Prefix))
	default:
		return nil
	}
	env, err := spec.DecodeEnvelope(b)
	if err != nil || env.Protocol.V != "aof" {
		return nil
	}
	return env
}

// scenarioTask is a scenario's task for aof.
type scenarioTask struct {
	TaskID   string         `json:"taskId"`
	Title    string         `json:"title"`
	Body     string         `json:"body"`
	Metadata map[string]any `json:"metadata"`
	// HeartbeatTTL is the TTL of the heartbeat the dispatcher writes at lease
	// time (1.5 s when absent), stretched by --timeout-scale.
	HeartbeatTTL conform.Duration `json:"heartbeatTTL"`
	// Handoff, for a delegated child, is written to <task dir>/inputs/handoff.json
	// (and handoff.md) before dispatch, as the router does on handoff.request.
	Handoff *Handoff `json:"handoff"`
	// DataDir makes the engine the scheduler of an existing data directory
	// (docs/bindings.md "Orchestrators", aof): the task taskId waits there in
	// tasks/ready/, every agent id is run by the one executor, and delegated child
	// tasks are dispatched in their turn. Title, body, metadata and handoff are the
	// task file's.
	DataDir string `json:"dataDir"`
	// HeartbeatTTLMs is the heartbeat TTL in milliseconds (the scheduler's task
	// file); heartbeatTTL wins when both are given.
	HeartbeatTTLMs int64 `json:"heartbeatTtlMs"`
}

// scenarioSetup is a scenario's setup for aof: what an earlier run left behind.
type scenarioSetup struct {
	// PriorRun: a previous run of the same task died; its heartbeat expired, the
	// scheduler reclaimed the task to ready (run marked expired) and it is now
	// dispatched again.
	PriorRun bool `json:"priorRun"`
}

// DefaultScenarioTTL is the heartbeat TTL of a scenario that names none.
const DefaultScenarioTTL = 1500 * time.Millisecond

// Drive plays the dispatcher against the agent through the harness: the session
// prepares the data directory (the task leased to the agent, run.json, the lease
// heartbeat, the handoff of a delegated child), every envelope the agent prints is
// routed, the scheduler polls (a stale heartbeat reclaims the task and stops the
// agent), session_end runs when the agent exits normally and, when the agent left
// its task in progress (a crash), the scheduler recovers it once its heartbeat
// expires. Facts for the checks: conform.FactAOFHandoff, FactAOFStale, FactAOFFinalStatus,
// aof.files, aof.task_dir.
func Drive(h *harness.H) error {
	if err := faults.Check("aof", h.EngineFault()); err != nil {
		return harness.Error{Err: err}
	}
	sc := h.Scenario()
	var t scenarioTask
	if err := json.Unmarshal(h.Expand(sc.Task), &t); err != nil || t.TaskID == "" {
		return harness.Errorf("scenario %s: task needs taskId: %v", sc.ID, err)
	}
	var setup scenarioSetup
	if len(sc.Setup) > 0 {
		if err := json.Unmarshal(sc.Setup, &setup); err != nil {
			return harness.Errorf("scenario %s: setup: %v", sc.ID, err)
		}
	}
	if t.HeartbeatTTL <= 0 && t.HeartbeatTTLMs > 0 {
		t.HeartbeatTTL = conform.Duration(time.Duration(t.HeartbeatTTLMs) * time.Millisecond)
	}
	ttl := t.HeartbeatTTL.D(h.ScaleFactor())
	if ttl <= 0 {
		ttl = h.Scale(DefaultScenarioTTL)
	}
	if t.DataDir != "" && !filepath.IsAbs(t.DataDir) {
		t.DataDir = filepath.Join(h.Scratch(), t.DataDir)
	}
	attempt := 1 // the launch the recorded files belong to
	cfg := Config{Scratch: h.Scratch(), Scenario: sc.ID, TaskID: t.TaskID, AgentID: AgentID,
		Title: t.Title, Body: t.Body, TTL: ttl, Metadata: t.Metadata, Handoff: t.Handoff, Fault: h.EngineFault(),
		DataDir: t.DataDir, DispatchChildren: t.DataDir != "",
		// A file of the data directory the agent made a FIFO, a device or a
		// link leading out is not read, and the agent is judged for it.
		Refused: h.Refused(func() int { return attempt })}
	if t.Handoff != nil {
		harness.SetFact(h, conform.FactAOFHandoff, true)
	}
	sess, err := NewSession(clock.Real{}, cfg, func(at time.Time, from conform.Actor, stream string, data []byte) {
		r := conform.Record{From: from, Stream: stream, Time: at, Attempt: attempt}
		if len(data) > 0 && data[0] == '{' && json.Valid(data) {
			r.Msg = data
		} else {
			s := string(data)
			r.Text = &s
		}
		h.Record(r)
	})
	if err != nil {
		return harness.Errorf("scenario %s: preparing the data directory: %v", sc.ID, err)
	}
	if setup.PriorRun {
		sess.PriorRunReclaimed()
	}
	err = dispatch(h, sess, ttl)
	// The scheduler's next polls: each child task whose handoff the router
	// accepted is dispatched in its turn (the depth guard refused the others).
	for err == nil {
		attempt++
		child, cerr := sess.NextChild()
		if cerr != nil {
			err = harness.Errorf("dispatching a child task: %v", cerr)
			break
		}
		if child == nil {
			break
		}
		h.Event(attempt, conform.EventDispatchChild, conform.Details(conform.KeyTaskID.Is(child.Cfg.TaskID), conform.KeyAgent.Is(child.Cfg.AgentID)))
		if err = dispatch(h, child, ttl); errors.Is(err, harness.ErrNoTime) {
			err = nil
			break
		}
	}
	final := ""
	if task, gerr := sess.Store.Get(t.TaskID); gerr == nil {
		final = task.Status
	}
	harness.SetFact(h, conform.FactAOFFinalStatus, final)
	harness.SetFact(h, conform.FactAOFFiles, listFiles(sess.Store.Dir, 2000))
	harness.SetFact(h, conform.FactAOFTaskDir, "tasks/in-progress/"+t.TaskID)
	return err
}

// dispatch runs the agent on the session's (leased) task: every envelope it
// prints is routed, the scheduler polls (a stale heartbeat reclaims the task and
// stops the agent), session_end runs when the agent exits normally and, when the
// agent left its task in progress (a crash), the scheduler recovers it once its
// heartbeat expires.
func dispatch(h *harness.H, sess *Session, ttl time.Duration) error {
	a, err := h.Launch(nil, sess.Env()...)
	if err != nil {
		return err
	}
	a.CloseInput()
	stale := false
	// agentBeat: the agent has written its first heartbeat. Until then the
	// scheduler does not poll before one TTL has passed since the agent's first
	// sign of life: the lease heartbeat's TTL counts from there, the agent's
	// start-up is no part of it.
	agentBeat := false
	completed := false // the agent sent its completion.report
	observe := func(a *harness.Agent) {
		if at, ok := sess.ObserveHeartbeat(); ok && !agentBeat {
			agentBeat = true
			a.Alive(at, conform.LifeFirstHeartbeatWrite)
		}
	}
	poll := ttl / 10
	nextPoll := time.Now().Add(poll)
	err = a.Run(harness.Handler{
		Key: Key,
		// A heartbeat the agent wrote before a line (stdout or stderr) is recorded
		// before it, whether a poll or the line noticed it first: records at one
		// instant come in one order (reference transcripts are byte-stable).
		Collect: func(r conform.Record, final bool) []conform.Record {
			if final {
				return nil
			}
			observe(a)
			return []conform.Record{r}
		},
		OnLine: func(a *harness.Agent, r conform.Record) {
			if r.Stream != "stdout" {
				return
			}
			if r.Key == spec.TypeCompletion {
				// The run is over: its heartbeat is no longer owed (the agent
				// exits next; a slow exit is no stale run).
				completed = true
			}
			line := r.Msg
			if line == nil {
				line = []byte(harness.TextOf(&r))
			}
			o := sess.Line(agentio.Line{At: r.Time, Stream: "stdout", Data: line, Truncated: r.Truncated})
			if o.Reason == ReasonNestedDelegation {
				h.Event(a.N(), conform.EventDelegationRejected, conform.Details(conform.KeyReason.Is(o.Reason), conform.KeySeq.Is(r.Seq)))
			}
		},
		Monitor: func(a *harness.Agent, now time.Time) time.Time {
			if stale || completed || !a.Attempt().Terminated.IsZero() {
				return time.Time{}
			}
			if now.Before(nextPoll) {
				return nextPoll
			}
			nextPoll = now.Add(poll)
			observe(a)
			if !agentBeat && (a.Attempt().Alive.IsZero() || now.Before(a.Attempt().Alive.Add(ttl))) {
				// The lease TTL counts from the agent's first sign of life.
				return nextPoll
			}
			late, exp, last := sess.PollStale()
			if !late {
				return nextPoll
			}
			stale = true
			h.Event(a.N(), conform.EventStaleHeartbeat, conform.Details(conform.KeyExpiresAt.Is(spec.FormatTime(exp)), conform.KeyLastHeartbeat.Is(last)))
			harness.SetFact(h, conform.FactAOFStale, true)
			a.Terminate("stale heartbeat: the scheduler reclaimed the task")
			return time.Time{}
		},
	})
	// session_end (on a normal exit).
	sess.Exit(a.Attempt().Exit)
	if err == nil && !stale {
		// A task the agent left in progress (a crash) is recovered by the
		// scheduler once its heartbeat expires (§Stale Heartbeat Flow).
		if at, ok := sess.StaleAt(); ok {
			if wait := time.Until(at); wait > 0 && wait <= ttl {
				select {
				case <-time.After(wait):
				case <-h.Context().Done():
				}
			}
			sess.Poll()
		}
	}
	return err
}

// listFiles lists the regular files under root (slash paths, sorted, at most max).
func listFiles(root string, max int) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= max {
			return nil
		}
		if d.Type().IsRegular() {
			if rel, err := filepath.Rel(root, p); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// PriorRunReclaimed leaves behind what a dead earlier run of the task leaves after
// the scheduler's reclaim: partial work in the run directory, the transition to
// ready and the expired run in the events log.
func (s *Session) PriorRunReclaimed() {
	runDir := s.Store.RunDir(s.Cfg.TaskID)
	os.MkdirAll(filepath.Join(runDir, "work"), 0o755)
	os.WriteFile(filepath.Join(runDir, "work", "partial.txt"), []byte("left by the previous run\n"), 0o644)
	s.Store.Events.Log("task.transitioned", "scheduler", s.Cfg.TaskID, map[string]any{"from": spec.InProgress, "to": spec.Ready, "reason": ActionStaleReclaim})
	s.Store.Events.Log("run.expired", "scheduler", s.Cfg.TaskID, map[string]any{"reason": "stale_heartbeat"})
}
