// Package aop2 is the aop2 mock agent: an executor that reads one TASK line, does
// scripted work, heartbeats and reports progress as the task asks, and writes one
// RESPONSE (AOP JSON v2 contract 2.0.2-C, under the aopkit agent bindings).
//
// The work is scripted by the TASK itself, in task.extensions.x_mockagent (an
// extension, so any orchestrator ignores it):
//
//	{"work_seconds": 10, "cost_usd": 0.01,
//	 "faults_by_model": {"gpt-x": "hang"}, "faults_by_attempt": {"1": "report-failure"},
//	 "response_version": "2.1.0"}
//
// A fault given on the command line applies to every run; the per-model and
// per-attempt entries let one scenario drive retries and fallbacks. The value
// "report-failure" is no fault: the agent reports FAILURE in a valid RESPONSE.
package aop2

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
	"github.com/aopkit/aopkit/mockagent"
)

// Protocol is the protocol id.
const Protocol = "aop2"

// Agent is the protocol's reference agent (conform/protocols lists it).
var Agent = mockagent.Register(&mockagent.Agent{Protocol: Protocol, Faults: &faults, Run: Run})

// Version header values.
const (
	AOPVersion     = "2.0.2-C"
	SchemaVersion  = "2.0.2"
	ProtocolFamily = "AOP"
)

// maxTaskLine bounds the TASK line the agent reads (the contract's hard limit is 200KB).
const maxTaskLine = 4 << 20

// defaultWork is how long the agent works when the task does not say.
const defaultWork = 10 * time.Second

// script is task.extensions.x_mockagent.
type script struct {
	WorkSeconds     float64           `json:"work_seconds"`
	CostUSD         *float64          `json:"cost_usd"`
	FaultsByModel   map[string]string `json:"faults_by_model"`
	FaultsByAttempt map[string]string `json:"faults_by_attempt"`
	// ResponseVersion is the aop_version of the RESPONSE (default AOPVersion):
	// another 2.x revision, which an orchestrator MUST accept (§1.1).
	ResponseVersion string `json:"response_version"`
}

// timeout is the effective timeout of a TASK by §11 precedence (0: none), as
// lint/spec/aop2 computes it.
func timeout(t *aop2spec.Task) time.Duration {
	var gr *float64
	if t.GuardRails != nil {
		gr = t.GuardRails.TimeoutSeconds
	}
	d, _ := aop2spec.EffectiveTimeout(gr, t.ExecutionPolicy.TimeoutSeconds)
	return d
}

// readTask reads the first stdin line as a TASK (lint/spec/aop2's decoder, as
// the reference engine reads it) and its script, task.extensions.x_mockagent.
func readTask(line []byte) (*aop2spec.Task, script, error) {
	var sc script
	t, err := aop2spec.DecodeTask(line)
	if err != nil {
		return nil, sc, err
	}
	if x, ok := t.Task.Extensions["x_mockagent"]; ok {
		b, _ := json.Marshal(x)
		if err := json.Unmarshal(b, &sc); err != nil {
			return nil, sc, fmt.Errorf("task.extensions.x_mockagent: %v", err)
		}
	}
	return t, sc, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// agent is one run.
type agent struct {
	ctx    context.Context
	env    mockagent.Env
	clk    clock.Clock
	fault  string
	task   *aop2spec.Task
	mock   script // task.extensions.x_mockagent, or the out-of-band script
	start  time.Time
	out    *bufio.Writer
	outMu  sync.Mutex
	eof    <-chan struct{}
	lastPr time.Time
	pct    int
}

// Run plays the aop2 executor. It returns the process exit code.
func Run(ctx context.Context, env mockagent.Env, fault string) int {
	clk := env.TimeSource()
	first := make(chan []byte, 1)
	eof := make(chan struct{})
	in := &input{}
	go readStdin(env.Stdin, first, eof, in)
	var line []byte
	select {
	case <-ctx.Done():
		return 0
	case l, ok := <-first:
		if !ok {
			fmt.Fprintln(env.Stderr, "mockagent aop2: no TASK on stdin")
			return 2
		}
		line = l
	}
	a := &agent{ctx: ctx, env: env, clk: clk, fault: fault, out: bufio.NewWriter(env.Stdout), eof: eof}
	if t := strings.TrimSpace(string(line)); t != "" && t[0] != '{' {
		// Not a JSON envelope: a v1 markdown prompt (§1.3), read to its EOF.
		return a.runV1(line, in)
	}
	var err error
	if a.task, a.mock, err = readTask(line); err != nil {
		fmt.Fprintf(env.Stderr, "mockagent aop2: the first stdin line is not a TASK: %v\n", err)
		return 2
	}
	if sc, ok := outOfBand(env); ok {
		a.mock = sc
	}
	a.start = clk.Now()
	a.fault = a.effectiveFault()
	return a.work()
}

// outOfBand is the script the harness gives out of band ($AOPKIT_MOCKAGENT_SCRIPT,
// orchestrator side): it replaces task.extensions.x_mockagent, which an
// orchestrator need not pass on.
func outOfBand(env mockagent.Env) (script, bool) {
	var sc script
	b, ok := mockagent.Script(env)
	if !ok || json.Unmarshal(b, &sc) != nil {
		return sc, false
	}
	return sc, true
}

// input keeps the stdin lines after the first one (the rest of a v1 prompt), up
// to maxTaskLine bytes in all.
type input struct {
	mu    sync.Mutex
	lines []string
	size  int
}

func (in *input) add(line []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.size+len(line) <= maxTaskLine {
		in.lines = append(in.lines, string(line))
		in.size += len(line) + 1
	}
}

func (in *input) text() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return strings.Join(in.lines, "\n")
}

// readStdin delivers the first line, then reads on until EOF (the orchestrator is
// gone; for a v1 prompt, the end of the prompt), keeping the later lines in rest.
func readStdin(r io.Reader, first chan<- []byte, eof chan<- struct{}, rest *input) {
	defer close(eof)
	br := bufio.NewReaderSize(r, 64*1024)
	sent := false
	for {
		line, err := readLine(br, maxTaskLine)
		if sent && (len(line) > 0 || err == nil) {
			rest.add(line)
		}
		if !sent && (len(line) > 0 || err == nil) {
			first <- line
			sent = true
		}
		if err != nil {
			if !sent {
				close(first)
			}
			return
		}
	}
}

func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, isPrefix, err := br.ReadLine()
		if len(line)+len(frag) <= max {
			line = append(line, frag...)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

// effectiveFault is the command-line fault, or the task script's entry for this
// model or attempt.
func (a *agent) effectiveFault() string {
	s := a.mock
	if f, ok := s.FaultsByAttempt[strconv.Itoa(a.attempt())]; ok {
		return f
	}
	if f, ok := s.FaultsByModel[a.task.Target.Model]; ok {
		return f
	}
	return a.fault
}

func (a *agent) attempt() int {
	if at := a.task.Task.Attempt; at != nil && *at >= 1 {
		return int(*at)
	}
	return 1
}

func (a *agent) elapsed() time.Duration { return a.clk.Now().Sub(a.start) }

// wait sleeps until the agent's elapsed time reaches at. It returns false when the
// agent must stop (context done, or stdin closed unless the fault ignores it).
func (a *agent) wait(at time.Duration) bool {
	d := at - a.elapsed()
	eof := a.eof
	if a.fault == FaultIgnoreShutdown || a.fault == FaultHang {
		eof = nil
	}
	select {
	case <-a.ctx.Done():
		return false
	case <-eof:
		return false
	case <-a.clk.After(d):
		return true
	}
}

// work is the agent's schedule: heartbeats, progress updates, the scripted work,
// then the RESPONSE.
func (a *agent) work() int {
	if a.fault == FaultHang {
		<-a.ctx.Done()
		return 0
	}
	s := a.mock
	workEnd := defaultWork
	if s.WorkSeconds > 0 {
		workEnd = seconds(s.WorkSeconds)
	}
	var beatEvery time.Duration
	maxMissed := aop2spec.DefaultMaxMissedBeats
	if hb := a.task.ExecutionPolicy.Heartbeat; hb != nil && hb.Enabled {
		beatEvery, maxMissed = aop2spec.Heartbeat(hb.IntervalSeconds, hb.MaxMissedBeats)
	}
	stopBeatsAt := time.Duration(-1)
	switch a.fault {
	case FaultExceedTimeout:
		if t := timeout(a.task); t > 0 {
			workEnd = t + 60*time.Second
		} else {
			workEnd = time.Hour
		}
	case FaultLateHeartbeats:
		beatEvery = beatEvery * 7 / 4
		workEnd = max(workEnd, 3*beatEvery+time.Second)
	case FaultStopHeartbeats:
		if beatEvery > 0 {
			stopBeatsAt = 2*beatEvery + time.Second/2
			workEnd = max(workEnd, stopBeatsAt+time.Duration(maxMissed+2)*beatEvery)
		}
	}
	progEvery := aop2spec.ProgressInterval
	if a.fault == FaultProgressFlood {
		progEvery = time.Second
		workEnd = max(workEnd, 10*time.Second)
	}
	crashAt := time.Duration(-1)
	if a.fault == FaultCrashMidTask {
		crashAt = workEnd / 2
	}
	if a.fault == FaultUnknownMessageType {
		a.emit(map[string]any{
			"aop_version": AOPVersion, "message_type": "STATUS", "session_id": a.task.Session.SessionID,
			"task_id": a.task.Task.TaskID, "timestamp": a.stamp(), "status": "working",
		})
	}
	if (a.fault == FaultNestedDelegation || a.fault == FaultTaskStatusInTask) && a.task.Task.ParentTaskID == "" {
		// A sub-task the orchestrator dispatches (it has a parent) does its work
		// without delegating again.
		a.delegate()
	}
	nextBeat, nextProg := beatEvery, time.Duration(0)
	for {
		now := a.elapsed()
		if beatEvery > 0 && now >= nextBeat {
			if stopBeatsAt < 0 || now < stopBeatsAt {
				a.heartbeat(workEnd)
			}
			nextBeat += beatEvery
		}
		if now >= nextProg {
			a.progress(now, workEnd)
			nextProg += progEvery
		}
		if crashAt >= 0 && now >= crashAt {
			a.flush()
			return 1
		}
		if now >= workEnd {
			break
		}
		next := min(workEnd, nextProg)
		if beatEvery > 0 {
			next = min(next, nextBeat)
		}
		if crashAt >= 0 {
			next = min(next, crashAt)
		}
		if !a.wait(next) {
			a.flush()
			return 0
		}
	}
	return a.finish()
}

func (a *agent) stamp() string {
	t := a.clk.Now().UTC()
	if a.fault == FaultBadTimestamps {
		return t.Format("02/01/2006 15:04")
	}
	return t.Format(time.RFC3339)
}

func (a *agent) percent(now, end time.Duration) int {
	if end <= 0 {
		return 100
	}
	p := int(now * 100 / end)
	return min(max(p, 0), 99)
}

func (a *agent) phase() (string, string) {
	if len(a.task.Phases) == 0 {
		return "", ""
	}
	p := a.task.Phases[0]
	cp := ""
	if len(p.Checkpoints) > 0 {
		cp = p.Checkpoints[0].CheckpointID
	}
	return p.PhaseID, cp
}

// eventHead is the head every §6 event starts with.
type eventHead struct {
	AOPVersion  string `json:"aop_version"`
	MessageType string `json:"message_type"`
	Event       string `json:"event"`
	SessionID   string `json:"session_id"`
	TaskID      string `json:"task_id"`
	Timestamp   string `json:"timestamp"`
	Agent       string `json:"agent"`
}

// eventHead is the head of the event named event, sent now.
func (a *agent) eventHead(event string) eventHead {
	return eventHead{
		AOPVersion: AOPVersion, MessageType: "EVENT", Event: event,
		SessionID: a.task.Session.SessionID, TaskID: a.task.Task.TaskID, Timestamp: a.stamp(),
		Agent: a.name(),
	}
}

// heartbeatEvent is the §6.1 event.
type heartbeatEvent struct {
	eventHead
	ProgressPercentage int    `json:"progress_percentage"`
	CurrentPhase       string `json:"current_phase,omitempty"`
	CurrentCheckpoint  string `json:"current_checkpoint,omitempty"`
}

// progressEvent is the §6.2 event.
type progressEvent struct {
	eventHead
	Progress progressBody `json:"progress"`
}

type progressBody struct {
	Percentage                    int    `json:"percentage"`
	CurrentPhase                  string `json:"current_phase,omitempty"`
	CurrentCheckpoint             string `json:"current_checkpoint,omitempty"`
	Message                       string `json:"message"`
	EstimatedTimeRemainingSeconds int    `json:"estimated_time_remaining_seconds"`
}

func (a *agent) name() string {
	if a.task.Target.AgentName != "" {
		return a.task.Target.AgentName
	}
	return "mockagent"
}

func (a *agent) heartbeat(workEnd time.Duration) {
	ph, cp := a.phase()
	a.garbage("still working...")
	a.emit(heartbeatEvent{
		eventHead:          a.eventHead("HEARTBEAT"),
		ProgressPercentage: a.percent(a.elapsed(), workEnd),
		CurrentPhase:       ph, CurrentCheckpoint: cp,
	})
}

func (a *agent) progress(now, workEnd time.Duration) {
	ph, cp := a.phase()
	a.pct = a.percent(now, workEnd)
	a.lastPr = a.clk.Now()
	a.garbage("progress: " + strconv.Itoa(a.pct) + "%")
	a.emit(progressEvent{
		eventHead: a.eventHead("PROGRESS_UPDATE"),
		Progress: progressBody{
			Percentage: a.pct, CurrentPhase: ph, CurrentCheckpoint: cp,
			Message:                       fmt.Sprintf("working on %s", a.task.Task.TaskID),
			EstimatedTimeRemainingSeconds: int((workEnd - now) / time.Second),
		},
	})
}

// garbage prints a free text line under the stdout-garbage fault.
func (a *agent) garbage(s string) {
	if a.fault == FaultStdoutGarbage {
		a.writeLine([]byte(s))
	}
}

func (a *agent) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	a.writeLine(b)
}

func (a *agent) writeLine(b []byte) {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	a.out.Write(b)
	a.out.WriteByte('\n')
	a.out.Flush()
}

func (a *agent) flush() {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	a.out.Flush()
}

// delegate sends sub-TASKs: four levels deep (nested-delegation), or one carrying
// task_status (task-status-in-task).
func (a *agent) delegate() {
	parent := a.task.Task.TaskID
	levels := 4
	if a.fault == FaultTaskStatusInTask {
		levels = 1
	}
	for i := 1; i <= levels; i++ {
		id := fmt.Sprintf("%s.%d", parent, 1)
		msg := map[string]any{
			"aop_version": AOPVersion, "schema_version": SchemaVersion, "protocol_family": ProtocolFamily,
			"message_type": "TASK",
			"session": map[string]any{
				"session_id": a.task.Session.SessionID, "created_at": a.stamp(),
				"orchestrator": a.name(), "origin": "AGENT",
			},
			"target": map[string]any{
				"agent_name": a.name(), "role": "EXECUTOR",
				"provider": a.task.Target.Provider, "model": a.task.Target.Model,
			},
			"task": map[string]any{
				"task_id": id, "parent_task_id": parent,
				"objective": fmt.Sprintf("Sub-task %d of %s.", i, a.task.Task.TaskID),
				"category":  "ANALYSIS", "complexity": "LOW",
				"environment": map[string]any{"workspace_root": a.task.Task.Environment.WorkspaceRoot},
			},
		}
		if a.fault == FaultTaskStatusInTask {
			msg["task_status"] = map[string]any{"state": "PENDING", "final_signal": "SUCCESS", "message": "queued"}
		}
		a.emit(msg)
		parent = id
	}
}

// workspace is where the agent may write: AOP2_WORKSPACE, else the TASK's
// workspace_root, relative paths taken from the agent's directory.
func (a *agent) workspace() string {
	ws := ""
	if a.env.Getenv != nil {
		ws = a.env.Getenv("AOP2_WORKSPACE")
	}
	if ws == "" {
		ws = a.task.Task.Environment.WorkspaceRoot
	}
	if ws == "" {
		ws = "."
	}
	if !filepath.IsAbs(ws) {
		ws = filepath.Join(a.env.Dir, ws)
	}
	return filepath.Clean(ws)
}

// resolve maps a task path into the workspace; ok is false for a path outside it.
func (a *agent) resolve(p string) (string, bool) {
	ws := a.workspace()
	root := filepath.Clean(a.task.Task.Environment.WorkspaceRoot)
	if filepath.IsAbs(p) {
		p = filepath.Clean(p)
		if root != "." && root != "" && (p == root || strings.HasPrefix(p, root+string(filepath.Separator))) {
			p, _ = filepath.Rel(root, p)
		} else if rel, err := filepath.Rel(ws, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		} else {
			return "", false
		}
	}
	full := filepath.Join(ws, p)
	if rel, err := filepath.Rel(ws, full); err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return full, true
}

// artifact is one output_artifacts entry.
type artifact struct {
	Type      string `json:"type"`
	Path      string `json:"path"`
	Hash      string `json:"hash"`
	Status    string `json:"status"`
	SizeBytes int    `json:"size_bytes"`
}

// writeOutputs writes the task's FILE outputs in the workspace.
func (a *agent) writeOutputs() ([]artifact, []string) {
	var arts []artifact
	var actions []string
	for _, o := range a.task.Task.ExpectedOutputs {
		if o.Type != "FILE" || o.Path == "" {
			continue
		}
		full, ok := a.resolve(o.Path)
		if !ok {
			actions = append(actions, "Skipped "+o.Path+": outside the workspace.")
			continue
		}
		status := "CREATED"
		if _, err := os.Stat(full); err == nil {
			status = "UPDATED"
		}
		data := []byte(fmt.Sprintf("written by mockagent aop2 for %s (attempt %d)\n", a.task.Task.TaskID, a.attempt()))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			continue
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			continue
		}
		sum := sha256.Sum256(data)
		arts = append(arts, artifact{Type: "FILE", Path: o.Path, Hash: "sha256:" + hex.EncodeToString(sum[:]), Status: status, SizeBytes: len(data)})
		if a.fault == FaultStaleArtifactHash {
			// A last edit after the hash was taken: the report describes the
			// earlier content.
			os.WriteFile(full, append(data, "edited after hashing\n"...), 0o644)
		}
		actions = append(actions, "Wrote "+o.Path+".")
		if a.fault == FaultClobberSnapshot && o.RollbackSnapshot != nil && o.RollbackSnapshot.Enabled {
			if sp, ok := a.resolve(o.RollbackSnapshot.SnapshotPath); ok && o.RollbackSnapshot.SnapshotPath != "" {
				os.Remove(sp)
			}
			os.RemoveAll(filepath.Join(a.workspace(), ".aop_snapshots"))
			actions = append(actions, "Deleted the rollback snapshots.")
		}
	}
	return arts, actions
}

// response is the §5 RESPONSE.
type response struct {
	AOPVersion        string         `json:"aop_version"`
	SchemaVersion     string         `json:"schema_version"`
	ProtocolFamily    string         `json:"protocol_family"`
	MessageType       string         `json:"message_type"`
	SessionID         string         `json:"session_id"`
	TaskID            string         `json:"task_id"`
	Agent             respAgent      `json:"agent"`
	TaskStatus        map[string]any `json:"task_status"`
	ExecutionSummary  execSummary    `json:"execution_summary"`
	CheckpointResults []checkpoint   `json:"checkpoint_results"`
	ErrorDetails      *errorDetails  `json:"error_details"`
	Timing            timing         `json:"timing"`
	CostTracking      costTracking   `json:"cost_tracking"`
	ProgressLog       progressLog    `json:"progress_log"`
	Extensions        map[string]any `json:"extensions,omitempty"`
}

type respAgent struct {
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

type execSummary struct {
	Summary         string         `json:"summary"`
	Actions         []string       `json:"actions"`
	OutputArtifacts []artifact     `json:"output_artifacts"`
	Warnings        []string       `json:"warnings"`
	Errors          []string       `json:"errors"`
	Extensions      map[string]any `json:"extensions,omitempty"`
}

type checkpoint struct {
	CheckpointID     string   `json:"checkpoint_id"`
	Status           string   `json:"status"`
	ValidationOutput string   `json:"validation_output"`
	Evidence         []string `json:"evidence"`
}

type errorDetails struct {
	ErrorCode           string   `json:"error_code"`
	Message             string   `json:"message"`
	RecoverySuggestions []string `json:"recovery_suggestions"`
}

type timing struct {
	StartedAt        string `json:"started_at"`
	CompletedAt      string `json:"completed_at"`
	DurationSeconds  int    `json:"duration_seconds"`
	RetriesAttempted int    `json:"retries_attempted"`
}

type costTracking struct {
	EstimatedCostUSD float64 `json:"estimated_cost_usd"`
	ActualCostUSD    float64 `json:"actual_cost_usd"`
	TokensInput      int     `json:"tokens_input"`
	TokensOutput     int     `json:"tokens_output"`
	ModelPricingTier string  `json:"model_pricing_tier"`
}

type progressLog struct {
	LastProgressEventAt string `json:"last_progress_event_at"`
	ProgressPercentage  int    `json:"progress_percentage"`
}

func (a *agent) cost() float64 {
	c := 0.01
	if s := a.mock.CostUSD; s != nil {
		c = *s
	}
	if a.fault == FaultOverBudget {
		budget := 1.0
		if b := a.task.Task.Budgets.MaxCostUSD; b != nil {
			budget = *b
		} else if cn := a.task.Task.Constraints.MaxCostUSD; cn != nil {
			budget = *cn
		}
		c = budget * 2
	}
	return c
}

// finish writes the outputs and the RESPONSE, as the fault allows.
func (a *agent) finish() int {
	arts, actions := a.writeOutputs()
	actions = append([]string{"Read the TASK " + a.task.Task.TaskID + "."}, actions...)
	actions = append(actions, "Reported the result.")
	now := a.clk.Now().UTC()
	r := response{
		AOPVersion: cmp.Or(a.mock.ResponseVersion, AOPVersion), SchemaVersion: SchemaVersion, ProtocolFamily: ProtocolFamily,
		MessageType: "RESPONSE", SessionID: a.task.Session.SessionID, TaskID: a.task.Task.TaskID,
		Agent:      respAgent{Name: a.name(), Provider: a.task.Target.Provider, Model: a.task.Target.Model},
		TaskStatus: map[string]any{"state": "COMPLETED", "final_signal": "SUCCESS", "message": "Task completed successfully."},
		ExecutionSummary: execSummary{
			Summary: "Completed " + a.task.Task.TaskID + " as scripted.", Actions: actions,
			OutputArtifacts: arts, Warnings: []string{}, Errors: []string{},
		},
		CheckpointResults: []checkpoint{},
		Timing: timing{
			StartedAt: a.start.UTC().Format(time.RFC3339), CompletedAt: now.Format(time.RFC3339),
			DurationSeconds: int(now.Sub(a.start) / time.Second), RetriesAttempted: a.attempt() - 1,
		},
		CostTracking: costTracking{EstimatedCostUSD: a.cost(), ActualCostUSD: a.cost(), TokensInput: 1200, TokensOutput: 300, ModelPricingTier: "standard"},
		ProgressLog:  progressLog{LastProgressEventAt: a.lastPr.UTC().Format(time.RFC3339), ProgressPercentage: 100},
	}
	if r.ExecutionSummary.OutputArtifacts == nil {
		r.ExecutionSummary.OutputArtifacts = []artifact{}
	}
	for _, p := range a.task.Phases {
		for _, cp := range p.Checkpoints {
			r.CheckpointResults = append(r.CheckpointResults, checkpoint{CheckpointID: cp.CheckpointID, Status: "PASS", ValidationOutput: "scripted", Evidence: []string{"mockagent"}})
		}
	}
	switch a.fault {
	case scriptReportFailure, FaultClobberSnapshot:
		r.TaskStatus = map[string]any{"state": "FAILED", "final_signal": "FAILURE", "message": "The scripted work failed."}
		r.ExecutionSummary.Errors = []string{"scripted failure"}
		r.ErrorDetails = &errorDetails{ErrorCode: "E_UNKNOWN", Message: "scripted failure", RecoverySuggestions: []string{"retry"}}
	case FaultWrongCorrelationID:
		r.TaskID += "-OTHER"
	case FaultWrongSessionID:
		r.SessionID += "-OTHER"
	case FaultWrongModel:
		r.Agent.Model += "-other"
	case FaultMissingFinalSignal:
		delete(r.TaskStatus, "final_signal")
	case FaultInvalidTransition:
		r.TaskStatus["state"] = "IN_PROGRESS"
	case FaultEmptyReport:
		r.ExecutionSummary.Summary = ""
		r.ExecutionSummary.Actions = []string{}
	case FaultBadExtensionKey:
		r.Extensions = map[string]any{"debug_id": "resp-1"}
	case FaultOversizePayload:
		r.ExecutionSummary.Extensions = map[string]any{"x_blob": strings.Repeat("x", 600*1024)}
	case FaultStaleRetryCount:
		r.Timing.RetriesAttempted = 0
	case FaultSwappedTiming:
		r.Timing.StartedAt, r.Timing.CompletedAt = r.Timing.CompletedAt, r.Timing.StartedAt
	case FaultV1Version:
		r.AOPVersion = "1.0"
	case FaultNoCompletionReport:
		a.flush()
		return 0
	}
	b, err := json.Marshal(r)
	if err != nil {
		return 1
	}
	switch a.fault {
	case FaultMalformedJSON:
		b = append(b[:len(b)-1], []byte(`,"trailing":}`)...)
	case FaultCrashAfterPartialReport:
		a.writeLine(b[:len(b)/2])
		return 1
	}
	a.writeLine(b)
	if a.fault == FaultDuplicateResponse {
		a.writeLine(b)
	}
	if a.fault == FaultExitNonzero || (a.fault == FaultExitNonzeroOnRetry && a.retried()) {
		return 1
	}
	return 0
}

// retried: the TASK re-dispatches the task to the model it names first (a retry,
// task.attempt 2 or more), not to one of its fallback alternatives.
func (a *agent) retried() bool {
	if a.attempt() < 2 {
		return false
	}
	for _, alt := range a.task.ExecutionPolicy.AlternativeModels {
		if alt.Model == a.task.Target.Model {
			return false
		}
	}
	return true
}
