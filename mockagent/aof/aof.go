// Package aof is the reference AOF/1 agent of mockagent (specs/aof-1.md) under the
// aof binding: it reads its task from AOF_TASK_FILE, keeps run_heartbeat.json in
// AOF_RUN_DIR fresh, reports progress with status.update, delegates when its task
// asks for it (metadata.delegateTo) and is not itself a delegated child, and ends
// with a completion.report. Each fault breaks one rule.
package aof

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/aopkit/aopkit/conform/fault"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint/aof/taskfile"
	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/mockagent"
)

// faults is the catalogue of the mock agent, each fault declared once below.
var faults fault.Catalogue

// The faults of the AOF agent; Rule names the lint rule or conform check each breaks.
var (
	FaultHang                    = faults.Add(fault.Fault{Name: "hang", Rule: "AOF-SEQ-007 + AOF-SEQ-006, aof/heartbeat/fresh heartbeat expires while the run is alive (the scheduler reclaims the task)", Doc: "stops all output and heartbeats after the first step and never exits"})
	FaultExceedTimeout           = faults.Add(fault.Fault{Name: "exceed-timeout", Rule: "AOF-SEQ-006 + aof/run/within-deadline run exceeds its deadline", Doc: "keeps heartbeating and working past the run deadline, never completes"})
	FaultStopHeartbeats          = faults.Add(fault.Fault{Name: "stop-heartbeats", Rule: "AOF-SEQ-007 run_heartbeat.json not refreshed within its TTL", Doc: "keeps working and sending progress but stops refreshing run_heartbeat.json"})
	FaultLateHeartbeats          = faults.Add(fault.Fault{Name: "late-heartbeats", Rule: "AOF-SEQ-007 run_heartbeat.json refreshed later than its TTL", Doc: "refreshes its heartbeat every 1.2 × TTL instead of well within it"})
	FaultCrashMidTask            = faults.Add(fault.Fault{Name: "crash-mid-task", Rule: "AOF-SEQ-006 session died without completion.report", Doc: "exits with code 2 after the first step, without a completion report"})
	FaultCrashAfterPartialReport = faults.Add(fault.Fault{Name: "crash-after-partial-report", Rule: "aof/bind/exit-zero crash (exit 2) after a partial completion, before session_end", Doc: "sends completion.report outcome partial, then exits with code 2 before session_end"})
	FaultMalformedJSON           = faults.Add(fault.Fault{Name: "malformed-json", Rule: "GEN-JSON-001 invalid JSON after the AOF/1 prefix", Doc: "writes one AOF/1 line whose JSON is cut short"})
	FaultEmptyReport             = faults.Add(fault.Fault{Name: "empty-report", Rule: "AOF-SCHEMA-001 completion.report without outcome, summaryRef, tests, notes", Doc: "sends a completion.report with an empty payload"})
	FaultNestedDelegation        = faults.Add(fault.Fault{Name: "nested-delegation", Rule: "AOF-SEQ-001 handoff.request from a delegated child (depth > 1)", Doc: "delegates a child task even though its own task is itself a delegated child"})
	FaultNoCompletionReport      = faults.Add(fault.Fault{Name: "no-completion-report", Rule: "AOF-SEQ-006 session ended without completion.report", Doc: "does the work and exits 0 without a completion report"})
	FaultOversizePayload         = faults.Add(fault.Fault{Name: "oversize-payload", Rule: "AOF-LIMIT-001 notes longer than 10,000 characters", Doc: "sends a completion.report whose notes exceed the 10,000-character limit"})
	FaultBadTimestamps           = faults.Add(fault.Fault{Name: "bad-timestamps", Rule: "AOF-TIME-001 sentAt is not an ISO 8601 date-time", Doc: "writes sentAt as \"22/11/2026 10:00:00\" in every envelope"})
	FaultInvalidTransition       = faults.Add(fault.Fault{Name: "invalid-transition", Rule: "AOF-SEQ-003 status.update to a status the state machine forbids", Doc: "sends status.update status done while the task is in-progress (in-progress → done skips review)"})
	FaultStdoutGarbage           = faults.Add(fault.Fault{Name: "stdout-garbage", Rule: "GEN-DETECT-002 non-protocol text on stdout", Doc: "prints plain log lines on stdout between its envelopes"})
	FaultTaskidMismatch          = faults.Add(fault.Fault{Name: "taskid-mismatch", Rule: "AOF-ENV-005 handoff.request payload.taskId differs from the envelope taskId", Doc: "delegates with a handoff.request whose payload names another task than its envelope"})
	FaultUnknownType             = faults.Add(fault.Fault{Name: "unknown-type", Rule: "AOF-ENV-004 unknown message type", Doc: "sends a message of type task.progress"})
	FaultWrongVersion            = faults.Add(fault.Fault{Name: "wrong-version", Rule: "AOF-ENV-002 version must be 1", Doc: "sends every envelope with version 2"})
	FaultDuplicateCompletion     = faults.Add(fault.Fault{Name: "duplicate-completion", Rule: "AOF-SEQ-004 completion.report sent twice (idempotent, warning)", Doc: "sends the same completion.report twice"})
	FaultUnauthorizedAgent       = faults.Add(fault.Fault{Name: "unauthorized-agent", Rule: "AOF-SEQ-005 fromAgent is not the task's lease holder", Doc: "sends its completion.report as another agent"})
	FaultIgnoreHandoff           = faults.Add(fault.Fault{Name: "ignore-handoff", Rule: "AOF-SEQ-002 delegated child never sends handoff.accepted or handoff.rejected (best practice 3)", Doc: "works on a delegated task without acknowledging its handoff"})
	FaultTestsOverflow           = faults.Add(fault.Fault{Name: "tests-overflow", Rule: "AOF-COMP-002 tests.passed + tests.failed exceeds tests.total", Doc: "reports 3 passed and 1 failed out of 3 tests"})
	FaultIgnoreShutdown          = faults.Add(fault.Fault{Name: "ignore-shutdown", Rule: "aof/bind/stop-on-sigterm exit within the grace period after SIGTERM (bindings §Process control)", Doc: "ignores SIGTERM and works on through twice the steps (each in time, heartbeat fresh): stopped mid-run, only SIGKILL ends it"})
	FaultWrongParent             = faults.Add(fault.Fault{Name: "wrong-parent", Rule: "aof/handoff/request-valid handoff.request parentTaskId is the delegating task (Handoff Request Payload)", Doc: "delegates with a handoff.request whose parentTaskId names the child task itself (its envelope taskId copied), not its own task"})
	FaultRequeueOnResume         = faults.Add(fault.Fault{Name: "requeue-on-resume", Rule: "aof/resume/clean-start a task re-dispatched after a stale-heartbeat reclaim reaches review (Resume Protocol)", Doc: "re-dispatched with a dead run's work left in its run directory, moves its task back to ready with status.update before working: its completion.report is recorded, but the task never reaches review"})
	FaultStringBlockers          = faults.Add(fault.Fault{Name: "string-blockers", Rule: "AOF-SCHEMA-001 (aof/lint/messages-valid) status.update blockers is a string[] (Status Update Protocol, Payload Fields)", Doc: "sends its second status.update with \"blockers\": \"none\", a string, not a list"})
)

// Agent is the protocol's reference agent (conform/protocols lists it).
var Agent = mockagent.Register(&mockagent.Agent{Protocol: "aof", Faults: &faults, Run: Run})

const steps = 3

// maxStep bounds a work step (and so the heartbeat refresh, at every step): the
// work takes TTL/3 a step, at most a second, so a scheduler whose TTL is long (AOF's
// own writes 5 minutes) still sees the task done in seconds.
const maxStep = time.Second

type agent struct {
	ctx                   context.Context
	env                   mockagent.Env
	fault                 string
	dataDir, taskID, self string
	taskFile, runDir      string
	ttl                   time.Duration
	depth                 int
	delegateTo            string
	out                   io.Writer
}

// Run plays the AOF agent; see the package doc.
func Run(ctx context.Context, env mockagent.Env, fault string) int {
	// The binding gives the agent an empty stdin (the task is in the data
	// directory): it reads it to its end before it exits, so that an observed
	// run records the end however soon the agent is done (at most stdinWait).
	eof := make(chan struct{})
	if env.Stdin != nil {
		go func() { io.Copy(io.Discard, env.Stdin); close(eof) }()
	}
	code := run(ctx, env, fault)
	if env.Stdin != nil {
		select {
		case <-eof:
		case <-ctx.Done():
		case <-env.Clock.After(stdinWait):
		}
	}
	return code
}

// stdinWait bounds how long the agent waits for the end of its stdin at exit.
const stdinWait = 200 * time.Millisecond

func run(ctx context.Context, env mockagent.Env, fault string) int {
	a := &agent{ctx: ctx, env: env, fault: fault, out: env.Stdout,
		dataDir: env.Getenv("AOF_DATA_DIR"), taskID: env.Getenv("AOF_TASK_ID"), self: env.Getenv("AOF_AGENT_ID"),
		taskFile: env.Getenv("AOF_TASK_FILE"), runDir: env.Getenv("AOF_RUN_DIR")}
	if a.dataDir == "" || a.taskID == "" || a.self == "" || a.taskFile == "" || a.runDir == "" {
		fmt.Fprintln(env.Stderr, "mockagent aof: AOF_DATA_DIR, AOF_TASK_ID, AOF_AGENT_ID, AOF_TASK_FILE and AOF_RUN_DIR must be set")
		return 2
	}
	if err := a.readTask(); err != nil {
		fmt.Fprintln(env.Stderr, "mockagent aof:", err)
		return 2
	}
	a.ttl = a.readTTL()
	beat := min(a.ttl/3, maxStep)
	if beat <= 0 {
		beat = maxStep
	}
	a.heartbeat()
	if stop := a.answerHandoff(); stop {
		return 0
	}
	if sc, ok := a.script(); ok {
		return a.play(sc, beat)
	}
	if fault == FaultRequeueOnResume && a.leftovers() {
		// The reclaim is the scheduler's, and done: the agent redoes it.
		a.send("status.update", a.taskID, map[string]any{"taskId": a.taskID, "agentId": a.self, "status": spec.Ready,
			"progress": "Requeued for a clean start", "notes": "a previous run left partial work in the run directory"})
	}
	if fault == FaultUnknownType {
		a.send("task.progress", a.taskID, map[string]any{"taskId": a.taskID, "agentId": a.self, "progress": "started"})
	}
	n := steps
	if fault == FaultIgnoreShutdown {
		n = 2 * steps
	}
	for i := 1; i <= n; i++ {
		if fault == FaultStopHeartbeats && i > 1 {
			// Keep working, slowly, without refreshing the heartbeat.
			if !a.sleep(a.ttl) {
				return 0
			}
		} else if fault == FaultLateHeartbeats && !a.sleep(a.ttl+a.ttl/5) {
			return 0
		} else if fault != FaultLateHeartbeats && !a.sleep(beat) {
			return 0
		} else {
			a.heartbeat()
		}
		if fault == FaultStdoutGarbage {
			fmt.Fprintf(a.out, "working on step %d of %d...\n", i, n)
		}
		progress := map[string]any{"taskId": a.taskID, "agentId": a.self, "progress": fmt.Sprintf("Step %d/%d done", i, n)}
		switch {
		case fault == FaultStringBlockers && i == 2:
			progress["blockers"] = "none"
		case fault == FaultMalformedJSON && i == 1:
			fmt.Fprintf(a.out, "%s{\"protocol\":\"aof\",\"version\":1,\"type\":\"status.update\",\"taskId\":%q,\n", "AOF/1 ", a.taskID)
		case fault == FaultInvalidTransition && i == 2:
			progress["status"] = "done"
		}
		a.send("status.update", a.taskID, progress)
		if i == 1 {
			switch fault {
			case FaultHang:
				for a.sleep(beat) {
				}
				return 0
			case FaultCrashMidTask:
				fmt.Fprintln(a.env.Stderr, "mockagent aof: simulated crash")
				return 2
			}
		}
		if i == 2 && fault == FaultCrashAfterPartialReport {
			a.completion("partial", "Steps 1-2 of 3 done; step 3 not started.")
			fmt.Fprintln(a.env.Stderr, "mockagent aof: simulated crash")
			return 2
		}
	}
	if fault == FaultExceedTimeout {
		for a.sleep(beat) {
			a.heartbeat()
		}
		return 0
	}
	a.writeSummary()
	if a.delegateTo != "" && a.depth == 0 || fault == FaultNestedDelegation || (fault == FaultTaskidMismatch || fault == FaultWrongParent) && a.depth == 0 {
		a.delegate(fault)
	}
	switch fault {
	case FaultNoCompletionReport:
		return 0
	case FaultEmptyReport:
		a.send("completion.report", a.taskID, map[string]any{})
		return 0
	}
	a.completion("done", "All scripted steps done.")
	if fault == FaultDuplicateCompletion {
		a.completion("done", "All scripted steps done.")
	}
	return 0
}

// sleep waits d on the agent's clock; false when the agent must stop.
func (a *agent) sleep(d time.Duration) bool { return a.env.Sleep(a.ctx, d) }

func (a *agent) now() string { return spec.FormatTime(a.env.Clock.Now()) }

// readTask reads delegationDepth and delegateTo from the task's frontmatter.
func (a *agent) readTask() error {
	data, err := os.ReadFile(a.taskFile)
	if err != nil {
		return fmt.Errorf("reading the task file: %v", err)
	}
	front, _, _ := strings.Cut(strings.TrimPrefix(string(data), "---\n"), "\n---")
	for _, line := range strings.Split(front, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch k {
		case "delegationDepth":
			a.depth, _ = strconv.Atoi(v)
		case "delegateTo":
			a.delegateTo = v
		}
	}
	return nil
}

type heartbeat struct {
	TaskID        string `json:"taskId"`
	AgentID       string `json:"agentId"`
	LastHeartbeat string `json:"lastHeartbeat"`
	BeatCount     int    `json:"beatCount"`
	ExpiresAt     string `json:"expiresAt"`
}

func (a *agent) hbPath() string { return filepath.Join(a.runDir, "run_heartbeat.json") }

// readTTL takes the TTL from the heartbeat the dispatcher wrote at lease time.
func (a *agent) readTTL() time.Duration {
	var hb heartbeat
	if data, err := os.ReadFile(a.hbPath()); err == nil && json.Unmarshal(data, &hb) == nil {
		last, _, ok1 := spec.ParseTime(hb.LastHeartbeat)
		exp, _, ok2 := spec.ParseTime(hb.ExpiresAt)
		if ok1 && ok2 && exp.After(last) {
			return exp.Sub(last)
		}
	}
	return spec.DefaultTTL
}

// heartbeat refreshes run_heartbeat.json: beatCount+1, expiresAt = now + TTL.
func (a *agent) heartbeat() {
	var hb heartbeat
	if data, err := os.ReadFile(a.hbPath()); err == nil {
		json.Unmarshal(data, &hb)
	}
	now := a.env.Clock.Now().UTC()
	hb.TaskID, hb.AgentID = a.taskID, a.self
	hb.BeatCount++
	hb.LastHeartbeat = spec.FormatTime(now)
	hb.ExpiresAt = spec.FormatTime(spec.ExpiresAt(now, a.ttl))
	data, _ := json.MarshalIndent(hb, "", "  ")
	tmp := a.hbPath() + ".tmp"
	if os.WriteFile(tmp, append(data, '\n'), 0o644) == nil {
		os.Rename(tmp, a.hbPath())
	}
}

// send writes one envelope; completion reports use the AOF/1 prefix.
func (a *agent) send(typ, taskID string, payload map[string]any) {
	a.sendAs(typ, taskID, a.self, "dispatcher", payload)
}

func (a *agent) sendAs(typ, taskID, from, to string, payload map[string]any) {
	sentAt := a.now()
	if a.fault == FaultBadTimestamps {
		sentAt = a.env.Clock.Now().UTC().Format("02/01/2006 15:04:05")
	}
	version := 1
	if a.fault == FaultWrongVersion {
		version = 2
	}
	env := envelope{Protocol: "aof", Version: version, ProjectID: projectID, Type: typ, TaskID: taskID,
		FromAgent: from, ToAgent: to, SentAt: sentAt, Payload: payload}
	data, _ := json.Marshal(env)
	prefix := ""
	if typ == "completion.report" {
		prefix = "AOF/1 "
	}
	fmt.Fprintf(a.out, "%s%s\n", prefix, data)
}

// projectID is the envelope's projectId: the upstream router requires one
// (aof-1's examples have none; aoplint takes it as the upstream dialect).
const projectID = "aopkit"

type envelope struct {
	Protocol  string         `json:"protocol"`
	Version   int            `json:"version"`
	ProjectID string         `json:"projectId"`
	Type      string         `json:"type"`
	TaskID    string         `json:"taskId"`
	FromAgent string         `json:"fromAgent"`
	ToAgent   string         `json:"toAgent"`
	SentAt    string         `json:"sentAt"`
	Payload   map[string]any `json:"payload"`
}

func (a *agent) taskDir() string { return strings.TrimSuffix(a.taskFile, ".md") }

// writeSummary writes outputs/summary.md next to the task (the summaryRef).
func (a *agent) writeSummary() {
	dir := filepath.Join(a.taskDir(), "outputs")
	if os.MkdirAll(dir, 0o755) == nil {
		os.WriteFile(filepath.Join(dir, "summary.md"), []byte("# Summary\n\nAll scripted steps done.\n"), 0o644)
	}
}

func (a *agent) completion(outcome, notes string) { a.report(outcome, notes, nil) }

// report sends completion.report with its blockers (none: []).
func (a *agent) report(outcome, notes string, blockers []string) {
	if blockers == nil {
		blockers = []string{}
	}
	tests := map[string]any{"total": 3, "passed": 3, "failed": 0}
	if a.fault == FaultTestsOverflow {
		tests["failed"] = 1
	}
	if a.fault == FaultOversizePayload {
		notes = strings.Repeat("verbose log line; ", 700)
	}
	p := map[string]any{"outcome": outcome, "summaryRef": "outputs/summary.md",
		"deliverables": []string{"outputs/summary.md"}, "tests": tests, "blockers": blockers, "notes": notes}
	from := a.self
	if a.fault == FaultUnauthorizedAgent {
		from = "impostor-agent"
	}
	a.sendAs("completion.report", a.taskID, from, "dispatcher", p)
}

// Script is the agent's behaviour on the orchestrator side, given out of band
// ($AOPKIT_MOCKAGENT_SCRIPT, never inside a protocol message): per task id, the
// envelopes to send, then how the run ends. A task the script does not name runs
// as usual.
type Script struct {
	Tasks map[string]TaskScript `json:"tasks"`
}

// TaskScript is what the agent does on one task: after its first heartbeat (and
// its handoff's acknowledgement), it sends Send in order, half a beat apart (a
// heartbeat each), works half a beat more, then ends as End says: "complete" (the default: the
// summary and a completion.report with Outcome, Blockers and Notes, then exit 0),
// "exit" (exit 0 without a report) or "crash" (the report, then exit 2 before
// session_end).
type TaskScript struct {
	Send     []map[string]any `json:"send"`
	End      string           `json:"end"`
	Outcome  string           `json:"outcome"`
	Blockers []string         `json:"blockers"`
	Notes    string           `json:"notes"`
}

// script is the task's script, when the harness gave one for it.
func (a *agent) script() (TaskScript, bool) {
	b, ok := mockagent.Script(a.env)
	if !ok {
		return TaskScript{}, false
	}
	var sc Script
	if json.Unmarshal(b, &sc) != nil {
		return TaskScript{}, false
	}
	ts, ok := sc.Tasks[a.taskID]
	return ts, ok
}

// play runs a task's script. Each step of Send is an envelope whose missing
// fields are the agent's own (protocol, version, projectId, taskId, fromAgent,
// toAgent, sentAt); a step {"line": "..."} is printed as it is.
func (a *agent) play(sc TaskScript, beat time.Duration) int {
	for _, step := range sc.Send {
		if !a.sleep(beat / 2) {
			return 0
		}
		a.heartbeat()
		if line, ok := step["line"].(string); ok {
			fmt.Fprintln(a.out, line)
			continue
		}
		env := map[string]any{"protocol": "aof", "version": 1, "projectId": projectID, "taskId": a.taskID, "fromAgent": a.self, "toAgent": "dispatcher", "sentAt": a.now()}
		for k, v := range step {
			env[k] = v
		}
		data, _ := json.Marshal(env)
		prefix := ""
		if env["type"] == spec.TypeCompletion {
			prefix = spec.Prefix
		}
		fmt.Fprintf(a.out, "%s%s\n", prefix, data)
	}
	// A beat of work before the end, as on every run: the end comes after
	// the agent has read its (empty) stdin to its end.
	if !a.sleep(beat / 2) {
		return 0
	}
	a.heartbeat()
	if sc.End == "exit" {
		return 0
	}
	a.writeSummary()
	outcome := sc.Outcome
	if outcome == "" {
		outcome = spec.OutcomeDone
	}
	notes := sc.Notes
	if notes == "" {
		notes = "Scripted run: " + outcome + "."
	}
	a.report(outcome, notes, sc.Blockers)
	if sc.End == "crash" {
		fmt.Fprintln(a.env.Stderr, "mockagent aof: simulated crash")
		return 2
	}
	return 0
}

// answerHandoff acknowledges the handoff of a delegated child (aof-1 §Handoff
// Acceptance/Rejection, best practice 3): accepted when it has acceptance criteria,
// rejected for insufficient context (and the agent stops) when it has none. It
// reports whether the agent must stop.
func (a *agent) answerHandoff() bool {
	data, err := os.ReadFile(filepath.Join(a.taskDir(), "inputs", "handoff.json"))
	if err != nil || a.fault == FaultIgnoreHandoff {
		return false
	}
	if !noCriteria(data) {
		a.send("handoff.accepted", a.taskID, map[string]any{"taskId": a.taskID, "accepted": true})
		return false
	}
	a.send("handoff.rejected", a.taskID, map[string]any{"taskId": a.taskID, "accepted": false,
		"reason": "Insufficient context: the handoff has no acceptance criteria"})
	return true
}

// noCriteria reports whether an inputs/handoff.json gives no acceptance
// criteria: it is null, or an object whose acceptanceCriteria is absent, null
// or empty. Anything else, unreadable included, has criteria (the agent
// accepts rather than refuse on a file it cannot read).
func noCriteria(data []byte) bool {
	h, obj := spec.DecodeHandoff(data)
	ac := h.AcceptanceCriteria
	return (obj || string(bytes.TrimSpace(data)) == "null") && (!ac.Has() || ac.AnyNumber() == nil || ac.OK && len(ac.V) == 0)
}

// leftovers reports whether an earlier run of the task left work in the run
// directory (anything but the heartbeat the dispatcher wrote at lease time).
func (a *agent) leftovers() bool {
	es, _ := os.ReadDir(a.runDir)
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), "run_heartbeat.json") && e.Name() != "run.json" {
			return true
		}
	}
	return false
}

// otherTask derives a sibling task id: same date, number shifted by n*500.
func otherTask(id string, n int) string {
	i := strings.LastIndex(id, "-")
	num, err := strconv.Atoi(id[i+1:])
	if i < 0 || err != nil || len(id[i+1:]) != 3 {
		return id
	}
	return fmt.Sprintf("%s-%03d", id[:i], (num+500*n)%1000)
}

// delegate creates a child task in tasks/ready/ (the delegation module's job) and
// sends handoff.request for it.
func (a *agent) delegate(fault string) {
	to := a.delegateTo
	if to == "" {
		to = "swe-qa"
	}
	child := otherTask(a.taskID, 1)
	now := a.now()
	task := &taskfile.Task{ID: child, Title: "QA for " + a.taskID, Status: spec.Ready, Assignee: to,
		CreatedAt: now, UpdatedAt: now, Project: filepath.Base(a.dataDir), Priority: "normal",
		CreatedBy: a.self, LastTransitionAt: now, Body: "# QA for " + a.taskID + "\n\nVerify the parent's deliverables.\n"}
	task.SetMeta("parentTaskId", a.taskID)
	path := filepath.Join(a.dataDir, "tasks", "ready", child+".md")
	if os.WriteFile(path, task.Marshal(), 0o644) != nil {
		return
	}
	due := spec.FormatTime(a.env.Clock.Now().Add(24 * time.Hour))
	payloadTask, parent := child, a.taskID
	switch fault {
	case FaultTaskidMismatch:
		payloadTask = otherTask(a.taskID, 2)
	case FaultWrongParent:
		parent = child
	}
	a.sendAs("handoff.request", child, a.self, to, map[string]any{
		"taskId": payloadTask, "parentTaskId": parent, "fromAgent": a.self, "toAgent": to,
		"acceptanceCriteria": []string{"All tests pass"},
		"expectedOutputs":    []string{"outputs/qa-report.md"},
		"contextRefs":        []string{"tasks/in-progress/" + a.taskID + ".md"},
		"constraints":        []string{"No new dependencies"},
		"dueBy":              due,
	})
}
