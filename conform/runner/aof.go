package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
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

var aofTransitions = map[string][]string{
	"backlog":     {"ready", "blocked"},
	"ready":       {"in-progress", "blocked", "backlog"},
	"in-progress": {"review", "blocked", "ready"},
	"review":      {"done", "in-progress", "blocked"},
	"blocked":     {"ready", "in-progress", "review"},
	"done":        {},
}

// AOFValidTransition reports whether the AOF state machine allows from → to.
func AOFValidTransition(from, to string) bool {
	for _, t := range aofTransitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// driveAOF prepares a data directory (task file, lease, run.json, run_heartbeat.json
// with a short TTL), runs the agent, routes its envelopes, polls the heartbeat like
// the scheduler and applies run_result.json at session end.
func driveAOF(h *H) error {
	var t aofTask
	if err := json.Unmarshal(h.Expand(h.sc.Task), &t); err != nil || t.TaskID == "" {
		return harnessErrorf("scenario %s: task needs taskId: %v", h.sc.ID, err)
	}
	var setup aofSetup
	if len(h.sc.Setup) > 0 {
		if err := json.Unmarshal(h.sc.Setup, &setup); err != nil {
			return harnessErrorf("scenario %s: setup: %v", h.sc.ID, err)
		}
	}
	ttl := t.HeartbeatTTL.D(h.scale)
	if ttl <= 0 {
		ttl = h.Scale(900 * time.Millisecond)
	}
	data := filepath.Join(h.scratch, "aof")
	for _, d := range []string{"backlog", "ready", "in-progress", "review", "blocked", "done"} {
		if err := os.MkdirAll(filepath.Join(data, "tasks", d), 0o755); err != nil {
			return harnessErrorf("data dir: %v", err)
		}
	}
	runDir := filepath.Join(data, "runs", t.TaskID)
	for _, d := range []string{runDir, filepath.Join(data, "events")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return harnessErrorf("data dir: %v", err)
		}
	}
	now := time.Now().UTC()
	stamp := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
	events := &aofEvents{path: filepath.Join(data, "events", "events.jsonl")}
	if setup.PriorRun {
		prev := now.Add(-10 * time.Minute)
		writeJSON(filepath.Join(runDir, "run.json"), map[string]any{"taskId": t.TaskID, "agentId": AOFAgentID, "startedAt": stamp(prev), "status": "expired", "artifactPaths": map[string]any{"inputs": "inputs/", "work": "work/", "output": "output/"}, "metadata": map[string]any{"expiredReason": "stale_heartbeat"}})
		writeJSON(filepath.Join(runDir, "run_heartbeat.json"), map[string]any{"taskId": t.TaskID, "agentId": AOFAgentID, "lastHeartbeat": stamp(prev.Add(time.Minute)), "beatCount": 7, "expiresAt": stamp(prev.Add(6 * time.Minute))})
		os.MkdirAll(filepath.Join(runDir, "work"), 0o755)
		os.WriteFile(filepath.Join(runDir, "work", "partial.txt"), []byte("left by the previous run\n"), 0o644)
		events.log("task.transitioned", "scheduler", t.TaskID, map[string]any{"from": "in-progress", "to": "ready", "reason": "stale_heartbeat_reclaim"})
		events.log("task.transitioned", "dispatcher", t.TaskID, map[string]any{"from": "ready", "to": "in-progress", "reason": "dispatch"})
	}
	taskFile := filepath.Join(data, "tasks", "in-progress", t.TaskID+".md")
	if t.Handoff != nil {
		in := filepath.Join(data, "tasks", "in-progress", t.TaskID, "inputs")
		if err := os.MkdirAll(in, 0o755); err != nil {
			return harnessErrorf("handoff: %v", err)
		}
		writeJSON(filepath.Join(in, "handoff.json"), t.Handoff)
		os.WriteFile(filepath.Join(in, "handoff.md"), []byte(handoffMarkdown(t.Handoff)), 0o644)
		h.Fact("aof.handoff", true)
		h.recordFile(filepath.Join(in, "handoff.json"), 1)
	}
	if err := os.WriteFile(taskFile, []byte(aofTaskFile(t, "in-progress", stamp(now))), 0o644); err != nil {
		return harnessErrorf("task file: %v", err)
	}
	writeJSON(filepath.Join(runDir, "run.json"), map[string]any{"taskId": t.TaskID, "agentId": AOFAgentID, "startedAt": stamp(now), "status": "running", "artifactPaths": map[string]any{"inputs": "inputs/", "work": "work/", "output": "output/"}, "metadata": map[string]any{}})
	writeJSON(filepath.Join(runDir, "run_heartbeat.json"), map[string]any{"taskId": t.TaskID, "agentId": AOFAgentID, "lastHeartbeat": stamp(now), "beatCount": 0, "expiresAt": stamp(now.Add(ttl))})
	events.log("lease.acquired", "dispatcher", t.TaskID, map[string]any{"agentId": AOFAgentID, "ttlMs": ttl.Milliseconds()})
	h.recordFile(filepath.Join(runDir, "run.json"), 1)

	a, err := h.Launch(nil,
		"AOF_DATA_DIR="+data, "AOF_TASK_ID="+t.TaskID, "AOF_AGENT_ID="+AOFAgentID,
		"AOF_TASK_FILE="+taskFile, "AOF_RUN_DIR="+runDir)
	if err != nil {
		return err
	}
	a.CloseInput()
	status := "in-progress"
	var runResult map[string]any
	stale := false
	poll := ttl / 10
	slack := h.Scale(100 * time.Millisecond)
	var prevExp time.Time
	var prevLast string
	nextPoll := time.Now().Add(poll)
	err = a.Run(Handler{
		Key: AOFKey,
		OnLine: func(a *Agent, r conform.Record) {
			if r.Stream != "stdout" {
				return
			}
			env := AOFEnvelope(&r)
			if env == nil {
				return
			}
			typ, _ := env["type"].(string)
			id, _ := env["taskId"].(string)
			payload, _ := env["payload"].(map[string]any)
			from, _ := env["fromAgent"].(string)
			events.log("protocol.message.received", from, id, map[string]any{"type": typ, "seq": r.Seq})
			switch typ {
			case "completion.report":
				if id != t.TaskID || payload == nil {
					events.log("protocol.message.rejected", from, id, map[string]any{"reason": "task_not_found"})
					return
				}
				runResult = map[string]any{"taskId": id, "agentId": from, "completedAt": stamp(time.Now())}
				for k, v := range payload {
					runResult[k] = v
				}
				writeJSON(filepath.Join(runDir, "run_result.json"), runResult)
				events.log("task.completed", from, id, map[string]any{"outcome": payload["outcome"]})
			case "status.update":
				if target, _ := payload["status"].(string); target != "" && target != status {
					if AOFValidTransition(status, target) {
						events.log("task.transitioned", from, id, map[string]any{"from": status, "to": target})
						status = target
					} else {
						events.log("task.worklog", from, id, map[string]any{"reason": "invalid_transition", "from": status, "to": target})
					}
				}
			case "handoff.request":
				depth := 0
				if d, ok := t.Metadata["delegationDepth"].(float64); ok {
					depth = int(d)
				}
				if depth+1 > 1 {
					events.log("delegation.rejected", from, id, map[string]any{"reason": "nested_delegation"})
					h.rec.event(a.n, "delegation-rejected", map[string]any{"reason": "nested_delegation", "seq": r.Seq})
				} else {
					events.log("delegation.requested", from, id, map[string]any{"parentTaskId": payload["parentTaskId"]})
				}
			}
		},
		Monitor: func(a *Agent, now time.Time) time.Time {
			if stale || !a.att.Terminated.IsZero() {
				return time.Time{}
			}
			if now.Before(nextPoll) {
				return nextPoll
			}
			nextPoll = now.Add(poll)
			var hb struct {
				LastHeartbeat string `json:"lastHeartbeat"`
				ExpiresAt     string `json:"expiresAt"`
			}
			b, err := os.ReadFile(filepath.Join(runDir, "run_heartbeat.json"))
			if err != nil || json.Unmarshal(b, &hb) != nil {
				return nextPoll
			}
			exp, err := time.Parse(time.RFC3339Nano, hb.ExpiresAt)
			if err != nil {
				return nextPoll
			}
			late := false
			if hb.LastHeartbeat != prevLast {
				// A refresh: it must come before the previous heartbeat expired.
				if last, err := time.Parse(time.RFC3339Nano, hb.LastHeartbeat); err == nil && !prevExp.IsZero() && last.After(prevExp) {
					late = true
				}
				prevLast, prevExp = hb.LastHeartbeat, exp
			}
			if !late && now.Before(exp.Add(slack)) {
				return nextPoll
			}
			stale = true
			h.rec.event(a.n, "stale-heartbeat", map[string]any{"expiresAt": prevExp.UTC().Format(time.RFC3339Nano), "lastHeartbeat": hb.LastHeartbeat})
			h.Fact("aof.stale", true)
			// The scheduler recovers the task; the run is over for the agent.
			a.Terminate("stale heartbeat: the scheduler reclaimed the task")
			return time.Time{}
		},
	})
	// session_end: apply run_result.json (or, after a stale heartbeat without one,
	// reclaim to ready).
	final := status
	if runResult != nil {
		outcome, _ := runResult["outcome"].(string)
		switch outcome {
		case "done":
			if rr, ok := t.Metadata["reviewRequired"].(bool); ok && !rr {
				final = "done"
			} else {
				final = "review"
			}
		case "blocked":
			final = "blocked"
		case "needs_review", "partial":
			final = "review"
		}
	} else if stale {
		final = "ready"
	}
	if final != "in-progress" {
		os.Rename(taskFile, filepath.Join(data, "tasks", final, t.TaskID+".md"))
	}
	h.Fact("aof.final_status", final)
	h.Fact("aof.files", listFiles(data, 2000))
	h.Fact("aof.task_dir", "tasks/in-progress/"+t.TaskID)
	return err
}

func aofTaskFile(t aofTask, status, now string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s\ntitle: %q\nstatus: %s\nassignee: %s\ncreatedAt: %q\nupdatedAt: %q\n", t.TaskID, orDefault(t.Title, "Conformance task"), status, AOFAgentID, now, now)
	if len(t.Metadata) > 0 {
		b.WriteString("metadata:\n")
		keys := make([]string, 0, len(t.Metadata))
		for k := range t.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, _ := json.Marshal(t.Metadata[k])
			fmt.Fprintf(&b, "  %s: %s\n", k, v)
		}
	}
	b.WriteString("---\n")
	b.WriteString(orDefault(t.Body, "# "+orDefault(t.Title, "Conformance task")+"\n\nDo the work and report completion.\n"))
	return b.String()
}

func writeJSON(path string, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	os.WriteFile(path, append(b, '\n'), 0o644)
}

type aofEvents struct{ path string }

func (e *aofEvents) log(typ, actor, taskID string, payload map[string]any) {
	b, _ := json.Marshal(map[string]any{"type": typ, "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "actor": actor, "taskId": taskID, "payload": payload})
	f, err := os.OpenFile(e.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
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

func handoffMarkdown(h map[string]any) string {
	var b strings.Builder
	str := func(k string) string { s, _ := h[k].(string); return s }
	fmt.Fprintf(&b, "# Handoff Request\n\n**From:** %s\n**To:** %s\n**Due By:** %s\n", str("fromAgent"), str("toAgent"), str("dueBy"))
	for _, sec := range []struct{ key, title string }{{"acceptanceCriteria", "Acceptance Criteria"}, {"expectedOutputs", "Expected Outputs"}, {"contextRefs", "Context References"}, {"constraints", "Constraints"}} {
		items, _ := h[sec.key].([]any)
		fmt.Fprintf(&b, "\n## %s\n\n", sec.title)
		for _, it := range items {
			fmt.Fprintf(&b, "- %v\n", it)
		}
	}
	return b.String()
}

// recordFile records a JSON file the orchestrator side wrote (stream
// file:<path relative to the scratch directory>) in the session of attempt n.
func (h *H) recordFile(path string, n int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	c, err := compact(b)
	if err != nil {
		return
	}
	rel, _ := filepath.Rel(h.scratch, path)
	h.rec.add(conform.Record{From: "orchestrator", Stream: "file:" + filepath.ToSlash(rel), Msg: c, Attempt: n})
}
