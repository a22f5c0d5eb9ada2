// Package aop2 is the reference orchestrator of the AOP JSON v2 contract
// (Cyclops 2.0.2-C). Drive plays it against the agent under test through the
// conformance harness (conform/harness): aopconform runs it against real
// processes, its tests and the reference transcripts run it against the
// in-process mockagent on virtual time. It enforces the contract's policies for
// real — effective timeout by §11 precedence, heartbeat monitoring (§6.1),
// retries with backoff, fallback through alternative_models by trigger (§9),
// response validation (§5), payload limits before dispatch (§4), rollback
// snapshots (§7), v1 fallback (§1.3), priority escalation (§8), the final
// session report with cost summary and an audit trail on disk (§10).
//
// What refuses a TASK (v1 fallback, a sub-TASK's E_SCHEMA_VALIDATION) or a
// RESPONSE (E_MALFORMED_RESPONSE) is aoplint's decision, not a second copy of
// its rules: the engine lints the message with lint/aop2's rules of one message
// (admit.go: lintProblems) and an error refuses it; the engine's short texts
// only word the findings. Exceptions lists the deliberate differences (an
// extensions key tolerated, the limits under their own codes, AOP2-STATUS-001's
// warning refusing a RESPONSE); the checks of a RESPONSE against its TASK are
// the engine's own. conform/difftest holds AdmitsTask and AdmitsResponse to
// aoplint.
//
// docs/engine-aop2.md describes the behaviour with the spec sections it follows.
package aop2

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/internal/safefile"
	aop2lint "github.com/aopkit/aopkit/lint/aop2"
	"github.com/aopkit/aopkit/lint/linter"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// Protocol is the protocol id.
const Protocol = "aop2"

// Result is what the engine decided.
type Result struct {
	SessionID    string
	TaskID       string
	InputVersion string // V2, V1 or UNSTRUCTURED (§1.3)
	// State is the task's end: COMPLETED, FAILED, ABORTED, or REJECTED (never
	// dispatched).
	State       string
	FinalSignal string // SUCCESS, PARTIAL_SUCCESS, FAILURE, ABORTED
	Codes       []Code // every §12 code the engine raised, in order
	Events      []string
	Violations  []Violation
	Attempts    []Attempt
	Delegations []Delegation
	Rollback    []RolledBack
	Response    json.RawMessage // the RESPONSE the engine accepted
	// Network and Filesystem are the effective access of §11.2 the executor was
	// dispatched with.
	Network    string
	Filesystem aop2spec.Filesystem
	Cost       CostSummary
	AuditDir   string // absolute
	AuditFiles []string
}

// Code is one error code of §12 raised by the engine.
type Code struct {
	Code    string
	Attempt int  // 0: not tied to an attempt
	Fatal   bool // it ended the attempt or the task
	Detail  string
}

// Violation is a rule the executor broke, as the engine saw it (the linter has the
// same IDs).
type Violation struct {
	Rule    string
	Attempt int
	Count   int
	Detail  string // the first occurrence
}

// Attempt is one dispatch to one executor process.
type Attempt struct {
	N        int
	Provider string
	Model    string
	Trigger  string // why this model: "" for the target, else the fallback_trigger
	Outcome  string // SUCCESS or the error code that ended it
	ExitCode int
	Signal   string
	Started  time.Time
	Ended    time.Time
}

// Delegation is a sub-TASK an executor sent (§10).
type Delegation struct {
	TaskID   string
	Parent   string
	Depth    int
	Accepted bool
	// Code is why it was rejected, or the §12 code that ended its run.
	Code string
	// State is the node's state in the delegation graph: SKIPPED (rejected, or
	// not dispatched because the session aborted), PENDING (accepted, not run
	// yet), COMPLETED, FAILED or ABORTED (its run's end).
	State string
	// Run is the harness attempt that ran it (0: not dispatched); FinalSignal
	// is the final_signal of its accepted RESPONSE.
	Run         int
	FinalSignal string
}

// RolledBack is one artifact of a rollback (§7).
type RolledBack struct {
	Path         string `json:"path"`
	RestoredFrom string `json:"restored_from"`
	Status       string `json:"status"`
}

// CostSummary adds up the cost the executors reported.
type CostSummary struct {
	TotalUSD     float64     `json:"total_cost_usd"`
	TokensInput  int64       `json:"tokens_input"`
	TokensOutput int64       `json:"tokens_output"`
	BudgetUSD    *float64    `json:"budget_usd"`
	WithinBudget bool        `json:"within_budget"`
	ByModel      []ModelCost `json:"by_model"`
}

// ModelCost is the cost of one model.
type ModelCost struct {
	Provider string  `json:"provider"`
	Model    string  `json:"model"`
	Attempts int     `json:"attempts"`
	CostUSD  float64 `json:"cost_usd"`
}

// HasCode reports whether the engine raised code.
func (r *Result) HasCode(code string) bool {
	for _, c := range r.Codes {
		if c.Code == code {
			return true
		}
	}
	return false
}

// CodeList is the codes in order.
func (r *Result) CodeList() []string {
	var out []string
	for _, c := range r.Codes {
		out = append(out, c.Code)
	}
	return out
}

// HasViolation reports whether the executor broke rule.
func (r *Result) HasViolation(rule string) bool {
	for _, v := range r.Violations {
		if v.Rule == rule {
			return true
		}
	}
	return false
}

type engine struct {
	h        *harness.H
	fault    string // h.EngineFault()
	res      *Result
	task     *Task
	ws       string
	audit    *auditTrail
	events   string // events.jsonl, absolute
	priority string
	start    time.Time
	snaps    []snapshot
	known    map[string]int // task id → delegation depth
	subs     []queuedSub    // accepted sub-tasks not dispatched yet
	costs    map[[2]string]*ModelCost
	err      error // a harness error (launch failure, interrupted)
	hashed   bool  // the aop2.files fact is recorded
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (e *engine) code(code string, attempt int, fatal bool, format string, args ...any) {
	e.res.Codes = append(e.res.Codes, Code{Code: code, Attempt: attempt, Fatal: fatal, Detail: fmt.Sprintf(format, args...)})
}

func (e *engine) violation(rule string, attempt int, format string, args ...any) {
	for i := range e.res.Violations {
		if v := &e.res.Violations[i]; v.Rule == rule && v.Attempt == attempt {
			v.Count++
			return
		}
	}
	e.res.Violations = append(e.res.Violations, Violation{Rule: rule, Attempt: attempt, Count: 1, Detail: fmt.Sprintf(format, args...)})
}

func (e *engine) run(data []byte) {
	t, problems, err := ParseTask(data)
	if err != nil {
		e.res.SessionID, e.res.TaskID = "AOP-SESSION-UNKNOWN", "UNKNOWN"
		e.res.InputVersion = "UNSTRUCTURED"
		if looksLikeV1(data) {
			e.res.InputVersion = "V1"
		}
		e.res.State, e.res.FinalSignal = "REJECTED", "FAILURE"
		e.code("E_PARSE_FAILURE", 0, true, "the TASK is not a JSON object: %v", err)
		e.openAudit("AOP-SESSION-UNKNOWN", "UNKNOWN", "")
		e.finalReport()
		return
	}
	e.task = t
	e.priority = t.Priority
	sid, tid := t.SessionID, t.TaskID
	if sid == "" {
		sid = "AOP-SESSION-UNKNOWN"
	}
	if tid == "" {
		tid = "UNKNOWN"
	}
	e.res.SessionID, e.res.TaskID = sid, tid
	e.openAudit(sid, tid, t.ParentTaskID)
	e.known[tid] = 0 // the scenario's task is a root task

	version, hasVersion := t.msg.AOPVersion, t.msg.HasString("aop_version")
	switch {
	case !hasVersion && e.fault == FaultAssumeV2:
		// The engine fault: taken as v2 and dispatched as it is, unvalidated.
		e.res.InputVersion = "V2"
		e.dispatchLoop()
		e.finalReport()
		return
	case !hasVersion:
		// §1.3 step 3: no aop_version → v1 markdown detection, which JSON never passes.
		e.res.InputVersion = "UNSTRUCTURED"
		e.res.State, e.res.FinalSignal = "REJECTED", "FAILURE"
		e.code("E_PARSE_FAILURE", 0, true, "no aop_version: neither a v2 envelope nor a v1 markdown prompt")
		e.finalReport()
		return
	case !strings.HasPrefix(version, "2.") || (e.fault == FaultStrictVersion && version != AOPVersion):
		e.res.InputVersion = "V1"
		e.versionFallback(version, []Problem{{"AOP2-VERSION-002", "/aop_version", fmt.Sprintf("aop_version %q is not 2.x", version)}})
		return
	}
	e.res.InputVersion = "V2"
	if e.fault == FaultRejectUnknown && unknownMembers(data) {
		// The engine fault: a member from a newer schema is refused outright.
		e.code("E_SCHEMA_VALIDATION", 0, true, "the TASK has members outside the %s schema", AOPVersion)
		e.res.State, e.res.FinalSignal = "REJECTED", "FAILURE"
		e.finalReport()
		return
	}
	var fatal []Problem
	for _, p := range problems {
		if tolerated(p.Rule, "TASK") {
			e.violation(p.Rule, 0, "%s", p)
			continue
		}
		fatal = append(fatal, p)
	}
	if len(fatal) > 0 {
		e.res.InputVersion = "V1"
		e.versionFallback(version, fatal)
		return
	}
	if !e.checkLimits() {
		return
	}
	e.checkAccess()
	if !e.takeSnapshots() {
		return
	}
	e.dispatchLoop()
	e.runSubTasks()
	harness.SetFact(e.h, conform.FactAOP2Snapshots, e.verifySnapshots())
	e.hashWorkspace()
	if e.res.State != "COMPLETED" {
		e.rollback()
	}
	e.finalReport()
}

// unknownMembers reports whether aoplint finds members outside the schema in the
// TASK (AOP2-ENVELOPE-007).
func unknownMembers(data []byte) bool {
	res := linter.LintBytes("task", data, linter.Options{Protocol: Protocol})
	for _, d := range res.Diagnostics {
		if d.Rule == aop2lint.UnknownMember.ID {
			return true
		}
	}
	return false
}

func looksLikeV1(data []byte) bool { return aop2spec.LooksLikeV1Prompt(string(data)) }

func (e *engine) openAudit(session, task, parent string) {
	e.audit = newAuditTrail(e.h.Scratch(), session, task, parent)
	e.res.AuditDir = e.audit.dir
	e.events = filepath.Join(e.audit.dir, "events.jsonl")
}

// versionFallback applies §1.3 "On schema failure, emit VERSION_FALLBACK event
// and transform to v1 prompt": E_SCHEMA_VALIDATION, the VERSION_FALLBACK event,
// the v1 prompt (kept as v1_prompt.md in the audit trail) dispatched to the
// executor in the v1 binding (runV1), and its v1 output judged.
func (e *engine) versionFallback(version string, problems []Problem) {
	skip := e.fault == FaultSkipVersionFallback
	e.code("E_SCHEMA_VALIDATION", 0, skip, "%d problem(s), first: %s", len(problems), problems[0])
	if skip {
		// The engine fault: the TASK is rejected as if v1 did not exist.
		e.res.State, e.res.FinalSignal = "REJECTED", "FAILURE"
		e.finalReport()
		return
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.String())
	}
	prompt := e.v1Prompt()
	rel := filepath.ToSlash(filepath.Join(e.audit.rel, "v1_prompt.md"))
	if err := writeFile(filepath.Join(e.audit.dir, "v1_prompt.md"), []byte(prompt)); err != nil && e.audit.err == nil {
		e.audit.err = err
	}
	e.emit(map[string]any{
		"event": "VERSION_FALLBACK", "from_version": version, "to_version": "1.x",
		"reason": "the TASK failed v2 validation", "error_code": "E_SCHEMA_VALIDATION",
		"validation_errors": msgs, "v1_prompt_path": rel,
	})
	e.audit.write(time.Now(), "ROUTING_DECISION", orchestratorActor, map[string]any{
		"input_version": "V1", "routed_to": e.task.AgentName, "model_selected": e.task.Model,
		"fallback_triggered": true, "fallback_reason": "E_SCHEMA_VALIDATION", "alternatives_tried": []string{},
	}, 1, nil, "ALLOWED", "E_SCHEMA_VALIDATION", nil)
	switch out := e.runV1(prompt); out {
	case outSuccess, outHarness:
	case outCancelled, outNoTime:
		e.end("ABORTED", "ABORTED")
	default:
		e.end("FAILED", "FAILURE")
	}
	e.finalReport()
}

// v1Prompt renders the TASK as a v1 markdown prompt (the layout
// aop2spec.LooksLikeV1Prompt recognises and docs/bindings.md describes): the
// "# AOP TASK <id>" heading, session and target, the objective, the task's
// extensions as a fenced json block (an orchestrator passes them on unchanged),
// and how to report: markdown ending with the status line (aop2spec.V1Status).
func (e *engine) v1Prompt() string {
	task := e.task.msg.Task
	obj := task.Objective
	var b strings.Builder
	fmt.Fprintf(&b, "# AOP TASK %s\n\n", e.res.TaskID)
	fmt.Fprintf(&b, "- Session: %s\n- Target: %s (%s / %s)\n\n", e.res.SessionID, e.task.AgentName, e.task.Provider, e.task.Model)
	fmt.Fprintf(&b, "## Objective\n\n%s\n\n", obj)
	if ext := task.Extensions; len(ext) > 0 {
		if data, err := marshal(ext); err == nil {
			fmt.Fprintf(&b, "## Extensions\n\n```json\n%s\n```\n\n", data)
		}
	}
	fmt.Fprintf(&b, "## Report\n\nAnswer in markdown. End with one status line: %s, %s or %s.\n",
		aop2spec.V1StatusLine("SUCCESS"), aop2spec.V1StatusLine("PARTIAL_SUCCESS"), aop2spec.V1StatusLine("FAILURE"))
	return b.String()
}

// Limits lists what the TASK breaks of §4's payload limits, one sentence each:
// its SOFT overflows (E_PAYLOAD_SIZE_WARNING) and its HARD ones
// (E_CONTEXT_OVERFLOW). The engine and the orchestrator-side checks judge by it.
func (t *Task) Limits() (soft, hard []string) {
	if t.Size > aop2spec.MaxTaskBytes {
		hard = append(hard, fmt.Sprintf("the TASK envelope is %d bytes; the limit is %d (200KB)", t.Size, aop2spec.MaxTaskBytes))
	}
	if t.Inputs > aop2spec.MaxInputs {
		hard = append(hard, fmt.Sprintf("task.inputs has %d files; the limit is %d", t.Inputs, aop2spec.MaxInputs))
	}
	if len(t.Outputs) > aop2spec.MaxExpectedOutputs {
		hard = append(hard, fmt.Sprintf("task.expected_outputs has %d artifacts; the limit is %d", len(t.Outputs), aop2spec.MaxExpectedOutputs))
	}
	if t.Objective > aop2spec.WarnObjective {
		soft = append(soft, fmt.Sprintf("task.objective has %d characters; warn at %d, limit %d", t.Objective, aop2spec.WarnObjective, aop2spec.MaxObjective))
	}
	if len(t.Phases) > aop2spec.MaxPhases {
		soft = append(soft, fmt.Sprintf("%d phases; the limit is %d", len(t.Phases), aop2spec.MaxPhases))
	}
	for i, n := range t.Phases {
		if n > aop2spec.MaxCheckpoints {
			soft = append(soft, fmt.Sprintf("phase %d has %d checkpoints; the limit is %d", i, n, aop2spec.MaxCheckpoints))
		}
	}
	return soft, hard
}

// checkLimits enforces §4 before dispatch: HARD limits reject with
// E_CONTEXT_OVERFLOW, SOFT limits warn with E_PAYLOAD_SIZE_WARNING.
func (e *engine) checkLimits() bool {
	t := e.task
	soft, hard := t.Limits()
	if e.fault == FaultNoPayloadWarning {
		soft = nil
	}
	if e.fault == FaultIgnoreHardLimits {
		hard = nil
	}
	now := time.Now()
	for _, s := range soft {
		e.code("E_PAYLOAD_SIZE_WARNING", 0, false, "%s", s)
		e.audit.write(now, "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "PAYLOAD_LIMIT", "result": "WARN", "details": s, "error_code": "E_PAYLOAD_SIZE_WARNING"}, 1, []string{"PAYLOAD_LIMIT"}, "ALLOWED", "E_PAYLOAD_SIZE_WARNING", nil)
	}
	if len(hard) > 0 {
		for _, h := range hard {
			e.code("E_CONTEXT_OVERFLOW", 0, true, "%s", h)
			e.audit.write(now, "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "PAYLOAD_LIMIT", "result": "FAIL", "details": h, "error_code": "E_CONTEXT_OVERFLOW"}, 1, []string{"PAYLOAD_LIMIT"}, "DENIED", "E_CONTEXT_OVERFLOW", nil)
		}
		e.res.State, e.res.FinalSignal = "REJECTED", "FAILURE"
		e.finalReport()
		return false
	}
	e.audit.write(now, "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "PAYLOAD_LIMIT", "result": "PASS", "details": fmt.Sprintf("TASK %d bytes within %d", t.Size, aop2spec.MaxTaskBytes), "error_code": nil}, 1, []string{"PAYLOAD_LIMIT"}, "ALLOWED", "", nil)
	return true
}

// checkAccess records the effective access of §11.2 the executor is dispatched
// with (the delegation guard holds sub-tasks to it).
func (e *engine) checkAccess() {
	t := e.task
	e.res.Network, e.res.Filesystem = t.Network, t.Filesystem
	fs := "not stated"
	switch {
	case !t.Filesystem.Allowed:
		fs = "none (target.capabilities.file_system_access is false)"
	case t.Filesystem.Read != nil || t.Filesystem.Write != nil:
		fs = fmt.Sprintf("read %v, write %v", t.Filesystem.Read, t.Filesystem.Write)
	}
	details := fmt.Sprintf("effective access (§11.2): filesystem %s; network %s", fs, orDefault(t.Network, "not stated"))
	e.audit.write(time.Now(), "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "ACCESS", "result": "PASS", "details": details, "error_code": nil}, 1, []string{"ACCESS"}, "ALLOWED", "", nil)
}

// takeSnapshots snapshots every rollback_snapshot-enabled output before dispatch
// (§7), by its snapshot_strategy (rollback.go, rollback_git.go).
func (e *engine) takeSnapshots() bool {
	for _, o := range e.task.Outputs {
		if !o.Snapshot {
			continue
		}
		s, err := takeSnapshot(e.ws, o)
		if err != nil {
			code := "E_ROLLBACK_FAILED"
			if strings.Contains(err.Error(), "outside the workspace") {
				code = "E_PERMISSION_DENIED"
			}
			e.code(code, 0, true, "snapshot of %s: %v", o.Path, err)
			e.res.State, e.res.FinalSignal = "REJECTED", "FAILURE"
			e.finalReport()
			return false
		}
		if s.Fallback != "" {
			e.h.Event(0, conform.EventSnapshotStrategy, conform.Details(conform.KeyPath.Is(o.Path), conform.KeyAsked.Is(o.Strategy), conform.KeyUsed.Is(s.Strategy), conform.KeyReason.Is(s.Fallback)))
		}
		e.snaps = append(e.snaps, s)
	}
	return true
}

// rollback restores the snapshots after a failed or aborted task (§7).
func (e *engine) rollback() {
	if len(e.snaps) == 0 || e.fault == FaultSkipRollback {
		return
	}
	trigger := "TASK_FAILED"
	if e.res.State == "ABORTED" {
		trigger = "TASK_ABORTED"
	}
	var arts []RolledBack
	failed := false
	for _, s := range e.snaps {
		rb := RolledBack{Path: s.Path, RestoredFrom: s.SnapPath, Status: "SUCCESS"}
		if err := s.restore(e.ws); err != nil {
			rb.Status = "FAILED"
			failed = true
			e.code("E_ROLLBACK_FAILED", 0, false, "%s: %v", s.Display, err)
		}
		arts = append(arts, rb)
	}
	e.res.Rollback = arts
	if e.fault != FaultNoRollbackEvent {
		e.emit(map[string]any{"event": "ROLLBACK_INITIATED", "trigger": trigger, "artifacts_rolled_back": arts})
	}
	status := "SUCCESS"
	if failed {
		status = "FAILED"
	}
	reason := ""
	if failed {
		reason = "E_ROLLBACK_FAILED"
	}
	e.audit.write(time.Now(), "ROLLBACK_EVENT", orchestratorActor, map[string]any{"trigger": trigger, "artifacts_rolled_back": arts, "status": status}, len(e.res.Attempts), []string{"ROLLBACK"}, "N/A", reason, nil)
}

// emit writes one orchestrator EVENT into the events log (and the transcript).
func (e *engine) emit(ev map[string]any) {
	ev["aop_version"] = AOPVersion
	ev["message_type"] = "EVENT"
	ev["session_id"] = e.res.SessionID
	ev["task_id"] = e.res.TaskID
	now := time.Now()
	ev["timestamp"] = now.UTC().Format(time.RFC3339)
	data, err := marshal(ev)
	if err != nil {
		return
	}
	e.res.Events = append(e.res.Events, ev["event"].(string))
	f, err := safefile.OpenAppend(e.events, 0o644) // never through a FIFO or a link
	if err == nil {
		_, err = f.Write(append(data, '\n'))
		f.Close()
	}
	if err != nil && e.audit.err == nil {
		e.audit.err = err
	}
	e.h.Record(conform.Record{From: conform.ActorOrchestrator, Stream: "file:" + filepath.ToSlash(filepath.Join(e.audit.rel, "events.jsonl")), Msg: data, Time: now})
	e.h.Emit(data)
}

func marshal(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimRight(b.String(), "\n")), nil
}

func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// finalReport emits SESSION_FINAL_REPORT with the cost summary (§10) and writes
// the session summary into the audit trail.
func (e *engine) finalReport() {
	cs := CostSummary{ByModel: []ModelCost{}}
	keys := make([][2]string, 0, len(e.costs))
	for k := range e.costs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"/"+keys[i][1] < keys[j][0]+"/"+keys[j][1] })
	for _, k := range keys {
		mc := *e.costs[k]
		mc.CostUSD = round(mc.CostUSD)
		cs.TotalUSD += mc.CostUSD
		cs.ByModel = append(cs.ByModel, mc)
	}
	cs.TotalUSD = round(cs.TotalUSD)
	cs.TokensInput, cs.TokensOutput = e.res.Cost.TokensInput, e.res.Cost.TokensOutput
	cs.WithinBudget = true
	if e.task != nil && e.task.MaxCostUSD != nil {
		b := *e.task.MaxCostUSD
		cs.BudgetUSD = &b
		cs.WithinBudget = !e.res.HasCode("E_COST_LIMIT_EXCEEDED")
	}
	e.res.Cost = cs
	attempts := []map[string]any{}
	for _, a := range e.res.Attempts {
		outcome := a.Outcome
		if e.fault == FaultOmitErrorCodes && outcome != outSuccess {
			outcome = "FAILED" // the fault: no §12 code anywhere in the report
		}
		attempts = append(attempts, map[string]any{"attempt": a.N, "provider": a.Provider, "model": a.Model, "outcome": outcome, "fallback_trigger": a.Trigger})
	}
	errs := []string{}
	for _, c := range e.res.Codes {
		if e.fault != FaultOmitErrorCodes {
			errs = append(errs, c.Code)
		}
	}
	nodes := []map[string]any{{"task_id": e.res.TaskID, "depth": 0, "state": e.res.State}}
	for _, d := range e.res.Delegations {
		n := map[string]any{"task_id": d.TaskID, "parent_task_id": d.Parent, "depth": d.Depth, "state": d.State}
		if d.Code != "" {
			n["error_code"] = d.Code
		}
		if d.FinalSignal != "" {
			n["final_signal"] = d.FinalSignal
		}
		nodes = append(nodes, n)
	}
	e.emit(map[string]any{
		"event": "SESSION_FINAL_REPORT", "status": e.res.State, "final_signal": e.res.FinalSignal,
		"input_version":    e.res.InputVersion,
		"tasks":            []map[string]any{{"task_id": e.res.TaskID, "state": e.res.State, "final_signal": e.res.FinalSignal, "attempts": attempts}},
		"delegation_graph": map[string]any{"nodes": nodes},
		"errors":           errs,
		"cost_summary":     cs,
		"audit_trail":      map[string]any{"storage_path": AuditStoragePath, "records": len(e.audit.files) + 1},
	})
	completed, failed := 0, 0
	if e.res.State == "COMPLETED" {
		completed = 1
	} else {
		failed = 1
	}
	agents := []string{}
	seen := map[string]bool{}
	for _, a := range e.res.Attempts {
		if k := a.Provider + "/" + a.Model; !seen[k] {
			seen[k] = true
			agents = append(agents, k)
		}
	}
	var budget *budgetStatus
	if cs.BudgetUSD != nil {
		budget = &budgetStatus{MaxCostUSD: cs.BudgetUSD, CurrentCostUSD: cs.TotalUSD, WithinBudget: cs.WithinBudget}
	}
	e.audit.write(time.Now(), "SESSION_SUMMARY", orchestratorActor, map[string]any{
		"total_tasks": 1, "completed": completed, "failed": failed, "total_cost_usd": cs.TotalUSD,
		"total_duration_seconds": int(time.Since(e.start) / time.Second), "agents_used": agents,
	}, max(len(e.res.Attempts), 1), nil, "N/A", "", budget)
	if e.audit.err == nil {
		data, _ := json.MarshalIndent(e.res.summaryJSON(), "", "  ")
		if err := writeFile(filepath.Join(e.audit.dir, "session_final_report.json"), append(data, '\n')); err != nil {
			e.audit.err = err
		}
	}
	e.res.AuditFiles = append([]string(nil), e.audit.files...)
}

// summaryJSON is the Result as written next to the audit trail.
func (r *Result) summaryJSON() map[string]any {
	return map[string]any{
		"session_id": r.SessionID, "task_id": r.TaskID, "input_version": r.InputVersion,
		"state": r.State, "final_signal": r.FinalSignal, "codes": r.Codes, "events": r.Events,
		"violations": r.Violations, "attempts": r.Attempts, "delegations": r.Delegations,
		"rollback": r.Rollback, "cost_summary": r.Cost,
	}
}
