package runner

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform/harness"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
)

// AOFAgentID is the agent id the harness leases the task to.
const AOFAgentID = "agent-under-test"

// AOFKey names an AOF envelope by its type (bare JSON or after the AOF/1 prefix).
func AOFKey(r *conform.Record) string {
	env := AOFEnvelope(r)
	if env == nil {
		return ""
	}
	t, _ := env["type"].(string)
	return t
}

// AOFEnvelope decodes the record as an AOF envelope (nil when it is none).
func AOFEnvelope(r *conform.Record) map[string]any {
	var b []byte
	switch {
	case r.Msg != nil:
		b = r.Msg
	case r.Text != nil && strings.HasPrefix(strings.TrimSpace(*r.Text), "AOF/1 "):
		b = []byte(strings.TrimPrefix(strings.TrimSpace(*r.Text), "AOF/1 "))
	default:
		return nil
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&m) != nil || dec.More() {
		return nil
	}
	if m["protocol"] != "aof" {
		return nil
	}
	return m
}

// aofTask is the scenario's task for aof.
type aofTask struct {
	TaskID   string         `json:"taskId"`
	Title    string         `json:"title"`
	Body     string         `json:"body"`
	Metadata map[string]any `json:"metadata"`
	// TTL of the heartbeat the dispatcher writes at lease time.
	HeartbeatTTL conform.Duration `json:"heartbeatTTL"`
	// Handoff, for a delegated child, is written to <task dir>/inputs/handoff.json
	// (and handoff.md) before dispatch, as the router does on handoff.request.
	Handoff map[string]any `json:"handoff"`
}

// aofSetup is the scenario's setup for aof: a prior run left behind.
type aofSetup struct {
	// PriorRun: a previous run of the same task died; its heartbeat expired, the
	// scheduler reclaimed the task to ready (run marked expired) and it is now
	// dispatched again.
	PriorRun bool `json:"priorRun"`
}

// driveAOF plays the dispatcher with the reference engine (conform/engine/aof): its
// session prepares the data directory (task leased to the agent, run.json, a first
// heartbeat with a short TTL, the handoff of a delegated child), routes every
// envelope the agent prints, polls the scheduler (stale heartbeats reclaim the task
// and stop the agent) and runs session_end when the agent exits normally.
func driveAOF(h *harness.H) error {
	var t aofTask
	if err := json.Unmarshal(h.Expand(h.Scenario().Task), &t); err != nil || t.TaskID == "" {
		return harness.Errorf("scenario %s: task needs taskId: %v", h.Scenario().ID, err)
	}
	var setup aofSetup
	if len(h.Scenario().Setup) > 0 {
		if err := json.Unmarshal(h.Scenario().Setup, &setup); err != nil {
			return harness.Errorf("scenario %s: setup: %v", h.Scenario().ID, err)
		}
	}
	ttl := t.HeartbeatTTL.D(h.ScaleFactor())
	if ttl <= 0 {
		ttl = h.Scale(1500 * time.Millisecond)
	}
	cfg := engaof.Config{Scratch: h.Scratch(), Scenario: h.Scenario().ID, TaskID: t.TaskID, AgentID: AOFAgentID,
		Title: t.Title, Body: t.Body, TTL: ttl, Metadata: t.Metadata}
	if t.Handoff != nil {
		b, _ := json.Marshal(t.Handoff)
		var ho engaof.Handoff
		if err := json.Unmarshal(b, &ho); err != nil {
			return harness.Errorf("scenario %s: handoff: %v", h.Scenario().ID, err)
		}
		cfg.Handoff = &ho
		h.Fact("aof.handoff", true)
	}
	sess, err := engaof.NewSession(clock.Real{}, cfg, &engineRecords{h: h, attempt: 1})
	if err != nil {
		return harness.Errorf("scenario %s: preparing the data directory: %v", h.Scenario().ID, err)
	}
	data := sess.Store.Dir
	runDir := sess.Store.RunDir(t.TaskID)
	if setup.PriorRun {
		// What a dead earlier run leaves behind after the scheduler's reclaim.
		os.MkdirAll(filepath.Join(runDir, "work"), 0o755)
		os.WriteFile(filepath.Join(runDir, "work", "partial.txt"), []byte("left by the previous run\n"), 0o644)
		sess.Store.Events.Log("task.transitioned", "scheduler", t.TaskID, map[string]any{"from": "in-progress", "to": "ready", "reason": "stale_heartbeat_reclaim"})
		sess.Store.Events.Log("run.expired", "scheduler", t.TaskID, map[string]any{"reason": "stale_heartbeat"})
	}
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
			a.Alive(at, "first-heartbeat-write")
		}
	}
	poll := ttl / 10
	nextPoll := time.Now().Add(poll)
	var prevExp time.Time
	var prevLast string
	err = a.Run(harness.Handler{
		Key: AOFKey,
		OnLine: func(a *harness.Agent, r conform.Record) {
			if r.Stream != "stdout" {
				return
			}
			// A heartbeat written before this line is recorded before it.
			observe(a)
			if r.Key == "completion.report" {
				// The run is over: its heartbeat is no longer owed (the agent
				// exits next; a slow exit is no stale run).
				completed = true
			}
			line := r.Msg
			if line == nil {
				line = []byte(harness.TextOf(&r))
			}
			o := sess.Line(agentio.Line{At: r.Time, Stream: "stdout", Data: line, Truncated: r.Truncated})
			if o.Kind == engaof.KindRejected && o.Reason == engaof.ReasonNestedDelegation {
				h.Event(a.N(), "delegation-rejected", map[string]any{"reason": o.Reason, "seq": r.Seq})
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
			// A refresh that comes after the previous heartbeat expired is stale too,
			// even when no poll fell into the gap.
			var hb struct {
				LastHeartbeat string `json:"lastHeartbeat"`
				ExpiresAt     string `json:"expiresAt"`
			}
			late := false
			if b, err := os.ReadFile(filepath.Join(runDir, "run_heartbeat.json")); err == nil && json.Unmarshal(b, &hb) == nil && hb.LastHeartbeat != prevLast {
				exp, err1 := time.Parse(time.RFC3339Nano, hb.ExpiresAt)
				last, err2 := time.Parse(time.RFC3339Nano, hb.LastHeartbeat)
				if err1 == nil && err2 == nil {
					late = !prevExp.IsZero() && last.After(prevExp)
					prevLast, prevExp = hb.LastHeartbeat, exp
				}
			}
			acts := sess.Poll()
			for _, act := range acts {
				if act.TaskID == t.TaskID {
					late = true
				}
			}
			if !late {
				return nextPoll
			}
			stale = true
			h.Event(a.N(), "stale-heartbeat", map[string]any{"expiresAt": prevExp.UTC().Format(time.RFC3339Nano), "lastHeartbeat": hb.LastHeartbeat})
			h.Fact("aof.stale", true)
			a.Terminate("stale heartbeat: the scheduler reclaimed the task")
			return time.Time{}
		},
	})
	// session_end (on a normal exit), by the engine.
	sess.Exit(a.Attempt().Exit)
	final := ""
	if task, gerr := sess.Store.Get(t.TaskID); gerr == nil {
		final = task.Status
	}
	h.Fact("aof.final_status", final)
	h.Fact("aof.files", listFiles(data, 2000))
	h.Fact("aof.task_dir", "tasks/in-progress/"+t.TaskID)
	return err
}

// engineRecords takes the transcript/1 records the reference engine writes and adds
// the ones the harness does not record itself (files the dispatcher wrote, the
// heartbeats it observed) to the scenario's transcript.
type engineRecords struct {
	h       *harness.H
	attempt int
}

func (e *engineRecords) Write(p []byte) (int, error) {
	var r conform.Record
	if json.Unmarshal(p, &r) != nil {
		return len(p), nil
	}
	if r.From == "harness" || r.Stream == "stdout" || r.Stream == "stderr" {
		return len(p), nil // the harness records these itself
	}
	at, err := time.Parse(time.RFC3339Nano, r.At)
	if err != nil {
		at = time.Now()
	}
	e.h.Record(conform.Record{From: r.From, Stream: r.Stream, Msg: r.Msg, Text: r.Text, Time: at, Attempt: e.attempt})
	return len(p), nil
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
