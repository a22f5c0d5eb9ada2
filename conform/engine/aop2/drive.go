package aop2

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/internal/safefile"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// Drive plays the orchestrator of one aop2 scenario against the agent under test
// through the harness: the engine dispatches the scenario's TASK, watches each
// attempt and decides retries, fallbacks, timeouts, heartbeat failures and
// rollbacks itself. Its errors are the harness's (the agent could not be
// launched, the run was interrupted).
func Drive(h *harness.H) error {
	res, err := Play(h)
	if err == nil && res.State == "REJECTED" && len(res.Attempts) == 0 {
		// The scenario's own TASK is unusable (schema, payload limits): nothing
		// was dispatched, so nothing of the agent can be judged. The scenario's
		// problem, not the agent's.
		detail := ""
		if len(res.Codes) > 0 {
			detail = ": " + res.Codes[len(res.Codes)-1].Code + " " + res.Codes[len(res.Codes)-1].Detail
		}
		return harness.Errorf("scenario %s: the aop2 engine rejected the scenario's TASK before dispatch%s", h.Scenario().ID, detail)
	}
	return err
}

// Orchestrate is Drive for the engine run as an orchestrator (aopconform
// engine): a TASK it rejects before dispatch (a HARD payload limit, no
// aop_version) is its decision, reported in its SESSION_FINAL_REPORT, not a
// harness error.
func Orchestrate(h *harness.H) error {
	_, err := Play(h)
	return err
}

// Play is Drive returning the engine's decisions (for the engine's tests).
func Play(h *harness.H) (*Result, error) {
	sc := h.Scenario()
	e := &engine{h: h, fault: h.EngineFault(), res: &Result{}, known: map[string]int{}, costs: map[[2]string]*ModelCost{},
		ws: filepath.Join(h.Scratch(), "workspace"), start: time.Now()}
	if err := faults.Check("aop2", e.fault); err != nil {
		return nil, harness.Error{Err: err}
	}
	if err := os.MkdirAll(e.ws, 0o755); err != nil {
		return nil, harness.Errorf("workspace: %v", err)
	}
	harness.SetFact(h, conform.FactAOP2Workspace, e.ws)
	e.run(h.Expand(sc.Task))
	if !e.hashed {
		e.hashWorkspace()
	}
	h.Event(0, conform.EventEngineOutcome, conform.Details(conform.KeyState.Is(e.res.State), conform.KeyFinalSignal.Is(e.res.FinalSignal), conform.KeyCodes.Is(nonNil(e.res.CodeList()))))
	if e.err != nil {
		return e.res, e.err
	}
	if e.audit != nil && e.audit.err != nil {
		return e.res, harness.Errorf("aop2 engine: audit trail: %v", e.audit.err)
	}
	return e.res, nil
}

// Key names an aop2 message for scenario steps and checks: "TASK", "RESPONSE",
// "EVENT/HEARTBEAT", ...
func Key(r *conform.Record) string {
	m := r.Obj()
	if m == nil {
		return ""
	}
	t, _ := m["message_type"].(string)
	if t == "EVENT" {
		ev, _ := m["event"].(string)
		return "EVENT/" + ev
	}
	return t
}

// hashWorkspace records the workspace's files for the checks (before a rollback
// changes them).
func (e *engine) hashWorkspace() {
	e.hashed = true
	harness.SetFact(e.h, conform.FactAOP2Files, hashFiles(e.ws, 500))
}

// verifySnapshots says, per rollback snapshot, whether the executor left it alone.
func (e *engine) verifySnapshots() []conform.AOP2Snapshot {
	var out []conform.AOP2Snapshot
	for _, s := range e.snaps {
		rel, err := filepath.Rel(e.h.Scratch(), s.SnapPath)
		if err != nil {
			rel = s.SnapPath
		}
		after := s.intact()
		out = append(out, conform.AOP2Snapshot{Path: filepath.ToSlash(rel), Intact: after == "", After: after})
	}
	return out
}

// hashFiles maps the regular files under root (slash paths) to their sha256.
func hashFiles(root string, max int) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir // a git workspace's repository (GIT_STASH, DIFF snapshots)
		}
		if err != nil || len(out) >= max || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 16<<20 {
			return nil
		}
		b, err := safefile.ReadFile(p, 16<<20) // the executor may swap in a FIFO
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		sum := sha256.Sum256(b)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	return out
}

// model is one candidate of the routing: the target, then each alternative (§9).
type model struct {
	Provider, Model, Trigger string
}

// immediate reports whether an alternative with this trigger takes over right
// after a failed attempt, before the current model's retries are used up.
func immediate(trigger, outcome string) bool {
	switch trigger {
	case "FIRST_ERROR":
		return true
	case "TIMEOUT":
		return outcome == "E_TIMEOUT"
	case "CRITICAL_ERROR":
		return IsCritical(outcome)
	case "COST_LIMIT_EXCEEDED":
		return outcome == "E_COST_LIMIT_EXCEEDED"
	}
	return false
}

// eligible reports whether an alternative with this trigger may take over once the
// current model's retries are used up.
func eligible(trigger, outcome string) bool {
	return trigger == "ALL_ERRORS" || immediate(trigger, outcome)
}

// Outcomes of an attempt that are no §12 code.
const (
	outSuccess   = "SUCCESS"
	outCancelled = "CANCELLED" // the orchestrator stopped it (a scenario step, the scenario deadline)
	outNoTime    = "NO_TIME"   // the scenario deadline passed before the attempt
	outHarness   = "HARNESS"   // the harness failed (e.err)
)

// dispatchLoop runs attempts: retries of one model with backoff, then fallback to
// the alternative models by trigger, until one succeeds or none is left.
func (e *engine) dispatchLoop() {
	p := e.task.Policy
	models := []model{{Provider: e.task.Provider, Model: e.task.Model}}
	for _, a := range p.Alternatives {
		models = append(models, model(a))
	}
	mi, n := 0, 0
	var last string
	for {
		cur := models[mi]
		switched := false
		for tries := 1; ; tries++ {
			n++
			outcome := e.runAttempt(n, cur)
			last = outcome
			switch outcome {
			case outSuccess, outHarness:
				return
			case outCancelled, outNoTime:
				e.end("ABORTED", "ABORTED")
				return
			}
			if p.AbortOnCritical && IsCritical(outcome) {
				e.code(outcome, n, true, "abort_on_first_critical_error: the session aborts on %s", outcome)
				e.end("ABORTED", "ABORTED")
				return
			}
			if mi+1 < len(models) && (immediate(models[mi+1].Trigger, outcome) || (e.fault == FaultNoRetries && eligible(models[mi+1].Trigger, outcome))) {
				mi++
				switched = true
				break
			}
			if tries <= p.MaxRetries {
				if !e.backoff(tries) {
					e.end("ABORTED", "ABORTED")
					return
				}
				continue
			}
			for j := mi + 1; j < len(models); j++ {
				if eligible(models[j].Trigger, outcome) {
					mi, switched = j, true
					break
				}
			}
			break
		}
		if !switched {
			break
		}
		e.audit.write(time.Now(), "ROUTING_DECISION", orchestratorActor, map[string]any{
			"input_version": "V2", "routed_to": e.task.AgentName, "model_selected": models[mi].Model,
			"fallback_triggered": true, "fallback_reason": last + " → " + models[mi].Trigger, "alternatives_tried": e.tried(),
		}, n+1, nil, "ALLOWED", last, nil)
	}
	if len(p.Alternatives) > 0 {
		e.code("E_ALL_MODELS_EXHAUSTED", 0, true, "%d model(s) tried, the last ended with %s", len(e.tried()), last)
	}
	if p.OnFailure == "ABORT_SESSION" {
		e.end("ABORTED", "ABORTED")
		return
	}
	e.end("FAILED", "FAILURE")
}

func (e *engine) end(state, signal string) {
	e.res.State, e.res.FinalSignal = state, signal
}

func (e *engine) tried() []string {
	out := []string{}
	seen := map[string]bool{}
	for _, a := range e.res.Attempts {
		if !seen[a.Model] {
			seen[a.Model] = true
			out = append(out, a.Model)
		}
	}
	return out
}

// backoff waits retry_backoff_seconds[retry-1] (the last value repeats); false
// when the run was interrupted.
func (e *engine) backoff(retry int) bool {
	b := e.task.Policy.Backoff
	if len(b) == 0 || e.fault == FaultNoBackoff {
		return true
	}
	d := b[min(retry-1, len(b)-1)]
	e.h.Event(0, conform.EventBackoff, conform.Details(conform.KeyRetry.Is(retry), conform.KeyWaitMS.Is(d.Milliseconds())))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.h.Context().Done():
		e.err = harness.Errorf("interrupted: %v", e.h.Context().Err())
		return false
	case <-t.C:
		return true
	}
}

// attemptState is the engine's view of one running executor.
type attemptState struct {
	n        int
	m        model // as dispatched
	fatal    string
	answered bool // a RESPONSE arrived (valid or not)
	valid    bool
	view     responseView
	raw      []byte
	lastBeat time.Time // zero: none yet (heartbeats are owed from the first sign of life)
	lastProg time.Time
	hbActive bool
	timedOut bool // the effective timeout expired (with or without auto_terminate)
	sub      bool // the run of an accepted sub-task (subtask.go), not an attempt of the scenario's task
}

// runAttempt dispatches the TASK to one executor process and watches it until it
// exits. It returns outSuccess, outCancelled, outNoTime, outHarness or the §12
// code that ended the attempt.
func (e *engine) runAttempt(n int, m model) string {
	if m.Trigger != "" && e.fault == FaultWrongFallbackModel {
		// The engine fault: the fallback goes out under the target's model.
		m = model{Provider: e.task.Provider, Model: e.task.Model, Trigger: m.Trigger}
	}
	line := e.task.dispatch(m.Provider, m.Model, n, e.priority, e.ws)
	if e.fault == FaultTaskStatusInTask && len(line) > 1 && line[len(line)-1] == '}' {
		line = append(line[:len(line)-1:len(line)-1], `,"task_status":"PENDING"}`...)
	}
	now := time.Now()
	e.audit.write(now, "ROUTING_DECISION", orchestratorActor, map[string]any{
		"input_version": "V2", "routed_to": e.task.AgentName, "model_selected": m.Model,
		"fallback_triggered": m.Trigger != "", "fallback_reason": nilIfEmpty(m.Trigger), "alternatives_tried": e.tried(),
	}, n, nil, "ALLOWED", "", nil)
	st := &attemptState{n: n, m: m, hbActive: e.task.Policy.Heartbeat}
	outcome := e.runExecutor(now, line, n, st)
	if outcome == outSuccess {
		e.res.Response = json.RawMessage(st.raw)
		e.end("COMPLETED", st.view.Signal)
	}
	return outcome
}

// runExecutor dispatches line (a TASK, attempt n in the audit trail) to a new
// executor process: the TASK_DISPATCHED audit record, the launch, the TASK on its
// stdin, then the watch to the run's end. It returns the run's outcome (outNoTime
// or outHarness when no process starts). A sub-task's st.n is the harness's
// attempt, set once the process is launched.
func (e *engine) runExecutor(at time.Time, line []byte, n int, st *attemptState) string {
	var dispatched any
	json.Unmarshal(line, &dispatched)
	e.audit.write(at, "TASK_DISPATCHED", orchestratorActor, dispatched, n, []string{"PAYLOAD_LIMIT", "TIMEOUT"}, "ALLOWED", "", nil)
	a, out := e.launch(line)
	if a == nil {
		return out
	}
	what := "TASK"
	if st.sub {
		st.n, what = a.Attempt().N, "sub-TASK"
	}
	if err := a.Send(line); err != nil {
		e.violation("aop2/bind/read-task", st.n, "the executor did not read its %s: %v", what, err)
	}
	if e.fault == FaultCloseStdinEarly && !st.sub {
		a.CloseInput()
	}
	return e.watch(a, st, func(r conform.Record) { e.handleLine(st, r) }, func(att *conform.Attempt) string { return e.outcome(st, att) })
}

// watch runs one launched attempt to its end under the engine's timers and the
// scenario's steps: onLine sees each executor line, judge decides the outcome,
// and the attempt is recorded.
func (e *engine) watch(a *harness.Agent, st *attemptState, onLine func(r conform.Record), judge func(att *conform.Attempt) string) string {
	if err := a.Run(harness.Handler{
		Key:     Key,
		OnLine:  func(_ *harness.Agent, r conform.Record) { onLine(r) },
		Act:     func(a *harness.Agent, step conform.Step) error { return e.act(st, a, step) },
		Monitor: func(a *harness.Agent, now time.Time) time.Time { return e.monitor(st, a, now) },
	}); err != nil {
		e.err = err
		return outHarness
	}
	att := a.Attempt()
	outcome := judge(att)
	if st.sub {
		return outcome // a sub-task's run is recorded in its Delegation (subtask.go)
	}
	e.res.Attempts = append(e.res.Attempts, Attempt{N: st.n, Provider: st.m.Provider, Model: st.m.Model, Trigger: st.m.Trigger,
		Outcome: outcome, ExitCode: att.Exit.Code, Signal: att.Exit.Signal, Started: att.Start, Ended: att.End})
	return outcome
}

// launch starts one executor process (input: what its attempt records as
// dispatched); on failure it returns nil and the attempt's outcome (outNoTime, or
// outHarness with e.err set).
func (e *engine) launch(input []byte) (*harness.Agent, string) {
	a, err := e.h.Launch(input, "AOP2_WORKSPACE="+e.ws)
	if errors.Is(err, harness.ErrNoTime) {
		return nil, outNoTime
	}
	if err != nil {
		e.err = err
		return nil, outHarness
	}
	return a, ""
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// monitor is the engine's timers for one attempt, run by the harness on every
// wake-up: the effective timeout (§11) and heartbeat liveness (§6.1), both counted
// from the agent's first sign of life and stretched by --timeout-scale, with the
// limits of lint/spec/aop2 (the ones aoplint judges the transcript by). It
// returns when it next wants to run.
func (e *engine) monitor(st *attemptState, a *harness.Agent, now time.Time) time.Time {
	att := a.Attempt()
	origin := att.Alive
	if origin.IsZero() || st.answered || st.fatal != "" || !att.Terminated.IsZero() {
		return time.Time{}
	}
	p := e.task.Policy
	var next time.Time
	consider := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	if p.Timeout > 0 && !st.timedOut {
		if at := origin.Add(e.h.Scale(p.Timeout)); now.Before(at) {
			consider(at)
		} else {
			e.timeout(st, a, now, false)
		}
	}
	if st.fatal == "" && st.hbActive && e.fault != FaultIgnoreMissedBeats {
		last := st.lastBeat
		if last.IsZero() {
			last = origin
		}
		scale := e.h.ScaleFactor()
		if aop2spec.HeartbeatFailed(now.Sub(last), p.HeartbeatInterval, p.MaxMissedBeats, scale, true) {
			e.heartbeatFailure(st, a, now, last)
		}
		if st.fatal == "" && st.hbActive {
			last = st.lastBeat
			if last.IsZero() {
				last = origin
			}
			// HeartbeatFailed is strict: wake just past the longest silence allowed.
			consider(last.Add(aop2spec.HeartbeatFailureAfter(p.HeartbeatInterval, p.MaxMissedBeats, scale) + time.Millisecond))
		}
	}
	if t := att.Terminated; !t.IsZero() {
		consider(t.Add(e.h.Grace())) // the SIGKILL after the grace period
	}
	return next
}

// timeout acts on the effective timeout (§11, E_TIMEOUT): with
// auto_terminate_on_timeout the executor is terminated, else it runs on. A
// scenario step "expire-timeout" makes it expire early (scripted).
func (e *engine) timeout(st *attemptState, a *harness.Agent, now time.Time, scripted bool) {
	if st.timedOut || st.answered || st.fatal != "" {
		return
	}
	st.timedOut = true
	p := e.task.Policy
	ran := now.Sub(a.Attempt().Origin())
	terminate := p.AutoTerminate && e.fault != FaultNoTimeoutKill
	detail := conform.Details(conform.KeyCode.Is("E_TIMEOUT"), conform.KeyAfterMS.Is(ran.Milliseconds()), conform.KeyTimeoutMS.Is(e.h.Scale(p.Timeout).Milliseconds()),
		conform.KeyFrom.Is(orDefault(p.TimeoutFrom, "none")), conform.KeyAutoTerminate.Is(terminate))
	if scripted {
		detail.Add(conform.KeyScripted.Is("the scenario expires the effective timeout early"))
	}
	e.h.Event(st.n, conform.EventTaskTimeout, detail)
	e.audit.write(now, "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "TIMEOUT", "result": "FAIL", "details": fmt.Sprintf("no RESPONSE within %s (%s)", ran.Round(time.Millisecond), orDefault(p.TimeoutFrom, "scenario")), "error_code": "E_TIMEOUT"}, st.n, []string{"TIMEOUT"}, "N/A", "E_TIMEOUT", nil)
	if !scripted {
		e.violation("AOP2-SEQ-010", st.n, "no RESPONSE within the effective timeout %s", e.h.Scale(p.Timeout))
	}
	if !terminate {
		e.code("E_TIMEOUT", st.n, false, "no RESPONSE within %s; auto_terminate_on_timeout is false, the executor runs on", ran.Round(time.Millisecond))
		return
	}
	st.fatal = "E_TIMEOUT"
	e.code("E_TIMEOUT", st.n, true, "no RESPONSE within %s; auto_terminate_on_timeout terminates the executor", ran.Round(time.Millisecond))
	reason := "E_TIMEOUT"
	if scripted {
		reason = "E_TIMEOUT (expired early by the scenario)"
	}
	a.Terminate(reason)
}

// heartbeatFailure applies on_heartbeat_failure after max_missed_beats (§6.1).
func (e *engine) heartbeatFailure(st *attemptState, a *harness.Agent, now, last time.Time) {
	p := e.task.Policy
	silent := now.Sub(last)
	detail := fmt.Sprintf("no HEARTBEAT for %s (%d × %s)", silent.Round(time.Millisecond), p.MaxMissedBeats, p.HeartbeatInterval)
	e.violation("AOP2-SEQ-005", st.n, "%s", detail)
	e.h.Event(st.n, conform.EventHeartbeatFailure, conform.Details(conform.KeyCode.Is("E_HEARTBEAT_FAILURE"), conform.KeyMissedForMS.Is(silent.Milliseconds()),
		conform.KeyLimitMS.Is(aop2spec.HeartbeatSilence(p.HeartbeatInterval, p.MaxMissedBeats, e.h.ScaleFactor()).Milliseconds()), conform.KeyAction.Is(p.OnHeartbeatFailure)))
	result := "FAIL"
	switch p.OnHeartbeatFailure {
	case "ABORT":
		st.fatal = "E_HEARTBEAT_FAILURE"
		e.code("E_HEARTBEAT_FAILURE", st.n, true, "%s; on_heartbeat_failure ABORT", detail)
		a.Terminate("E_HEARTBEAT_FAILURE")
	case "WARN":
		result = "WARN"
		e.code("E_HEARTBEAT_FAILURE", st.n, false, "%s; on_heartbeat_failure WARN", detail)
		st.lastBeat = now
	default: // CONTINUE
		result = "PASS"
		st.hbActive = false
	}
	e.audit.write(now, "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "TIMEOUT", "result": result, "details": detail + "; on_heartbeat_failure " + p.OnHeartbeatFailure, "error_code": "E_HEARTBEAT_FAILURE"}, st.n, []string{"HEARTBEAT"}, "N/A", "E_HEARTBEAT_FAILURE", nil)
}

// act performs the aop2 steps of a scenario.
func (e *engine) act(st *attemptState, a *harness.Agent, step conform.Step) error {
	switch step.Do {
	case "expire-timeout":
		e.timeout(st, a, time.Now(), true)
		return nil
	case "escalate":
		var es struct {
			Priority string `json:"new_priority"`
			By       string `json:"escalated_by"`
		}
		if err := json.Unmarshal(step.Message, &es); err != nil || indexOf(priorities, es.Priority) < 0 {
			return harness.Errorf("scenario %s: step escalate needs message {\"new_priority\": LOW|NORMAL|HIGH|CRITICAL}", e.h.Scenario().ID)
		}
		e.escalate(es.Priority, step.Reason, es.By)
		return nil
	}
	return harness.Errorf("scenario %s: step %q does not apply to aop2", e.h.Scenario().ID, step.Do)
}

// escalate emits PRIORITY_ESCALATION (§8); the next dispatch carries the new
// priority.
func (e *engine) escalate(priority, reason, by string) {
	if priority == e.priority {
		return
	}
	e.emit(map[string]any{"event": "PRIORITY_ESCALATION", "old_priority": e.priority, "new_priority": priority,
		"reason": orDefault(reason, "scripted escalation"), "escalated_by": orDefault(by, "aopkit-engine")})
	e.priority = priority
}

// handleLine interprets one recorded line of the executor.
func (e *engine) handleLine(st *attemptState, r conform.Record) {
	if r.Stream != "stdout" {
		return // stderr is free
	}
	data := []byte(r.Msg)
	if data == nil {
		data = []byte(harness.TextOf(&r))
	}
	if r.Truncated {
		e.code("E_CONTEXT_OVERFLOW", st.n, false, "a stdout line over %d bytes was cut", len(data))
		e.violation("AOP2-LIMIT-003", st.n, "a stdout line was longer than the harness reads")
		return
	}
	trimmed := trimSpace(data)
	if len(trimmed) == 0 {
		return
	}
	m, err := aop2spec.DecodeHeader(trimmed)
	if err != nil {
		if trimmed[0] == '{' || trimmed[0] == '[' {
			e.code("E_PARSE_FAILURE", st.n, false, "a stdout line looks like JSON but does not parse: %v", err)
			e.violation("GEN-JSON-001", st.n, "%v", err)
		} else {
			e.violation("GEN-DETECT-002", st.n, "non-JSON stdout kept as a log line: %.60q", trimmed)
		}
		return
	}
	switch mt := m.MessageType; mt {
	case "EVENT":
		e.handleEvent(st, r.Time, m.AsEvent(), trimmed)
	case "RESPONSE":
		e.handleResponse(st, r.Time, m.AsResponse(), trimmed)
	case "TASK":
		e.handleDelegation(st, trimmed)
	default:
		e.violation("AOP2-ENVELOPE-001", st.n, "message_type %q is not TASK, RESPONSE or EVENT; ignored", mt)
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// executorEvents are the events an executor sends; the others are the orchestrator's.
var executorEvents = set("HEARTBEAT", "PROGRESS_UPDATE")

func (e *engine) handleEvent(st *attemptState, at time.Time, m *aop2spec.Event, raw []byte) {
	// aoplint's findings in the event (its timestamp's AOP2-TIME-001, ...) are
	// reported; the engine ignores an event only for what follows.
	for _, p := range lintProblems(raw, "EVENT", as(checkHeader(m.Header))) {
		e.violation(p.Rule, st.n, "%s", p)
	}
	if sid := m.SessionID; sid != e.task.SessionID {
		e.violation("AOP2-SEQ-001", st.n, "event session_id %q is not the TASK's %q; ignored", sid, e.task.SessionID)
		return
	}
	if tid := m.TaskID; tid != e.task.TaskID {
		e.violation("AOP2-SEQ-001", st.n, "event task_id %q is not the TASK's %q; ignored", tid, e.task.TaskID)
		return
	}
	ev := m.Event
	if !executorEvents[ev] {
		e.violation("AOP2-ENVELOPE-006", st.n, "event %q is not an executor event (HEARTBEAT, PROGRESS_UPDATE); ignored", ev)
		return
	}
	switch ev {
	case "HEARTBEAT":
		// Liveness is the monitor's (lint/spec/aop2); late beats that stay within
		// it are aoplint's AOP2-SEQ-006, judged from the transcript.
		st.lastBeat = at
	case "PROGRESS_UPDATE":
		if !st.lastProg.IsZero() && aop2spec.ProgressTooSoon(at.Sub(st.lastProg), true) {
			e.violation("AOP2-SEQ-007", st.n, "PROGRESS_UPDATE %s after the previous one; at most one per 30 s", at.Sub(st.lastProg))
			return // the engine drops the extra update
		}
		st.lastProg = at
	}
}

// validTimestamp is AOP2-TIME-001's verdict: the contract's date-time
// (lint/spec/aop2), whatever its zone (a missing zone is only a warning there).
func validTimestamp(s string) bool {
	_, _, ok := aop2spec.ParseTime(s)
	return ok
}

func (e *engine) handleResponse(st *attemptState, at time.Time, m *aop2spec.Response, raw []byte) {
	if st.answered {
		e.violation("AOP2-SEQ-009", st.n, "a second RESPONSE; the first one stands")
		return
	}
	st.answered = true
	if st.fatal != "" {
		e.violation("aop2/5/final-response", st.n, "a RESPONSE after the attempt ended with %s; ignored", st.fatal)
		return
	}
	e.audit.write(at, "RESPONSE_RECEIVED", executorActor(e.task.AgentName, st.m.Provider, st.m.Model), m.Value(), st.n, []string{"FINAL_SIGNAL", "MINIMAL_REPORT"}, "N/A", "", nil)
	if size, over := aop2spec.OverSize(raw, aop2spec.MaxResponseBytes); over {
		st.fatal = "E_CONTEXT_OVERFLOW"
		e.code("E_CONTEXT_OVERFLOW", st.n, true, "the RESPONSE is %d bytes; the limit is %d (500KB)", size, aop2spec.MaxResponseBytes)
		e.violation("AOP2-LIMIT-003", st.n, "RESPONSE of %d bytes", size)
		return
	}
	view, problems := checkResponse(raw, m, e.task, st.m.Provider, st.m.Model)
	if v := m.AOPVersion; e.fault == FaultStrictVersion && v != AOPVersion {
		// The engine fault: another 2.x revision than its own is refused.
		problems = append(problems, Problem{"AOP2-VERSION-002", "/aop_version", fmt.Sprintf("aop_version %q is not %s", v, AOPVersion)})
	}
	var fatal []Problem
	for _, p := range problems {
		e.violation(p.Rule, st.n, "%s", p)
		if !tolerated(p.Rule, "RESPONSE") {
			fatal = append(fatal, p)
		}
	}
	if view.Actions > aop2spec.MaxActions {
		e.code("E_PAYLOAD_SIZE_WARNING", st.n, false, "execution_summary.actions has %d items; the limit is %d", view.Actions, aop2spec.MaxActions)
	}
	if len(fatal) > 0 {
		st.fatal = "E_MALFORMED_RESPONSE"
		e.code("E_MALFORMED_RESPONSE", st.n, true, "%s", fatal[0])
		e.audit.write(at, "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "FINAL_SIGNAL", "result": "FAIL", "details": fatal[0].String(), "error_code": "E_MALFORMED_RESPONSE"}, st.n, []string{"FINAL_SIGNAL", "MINIMAL_REPORT"}, "N/A", "E_MALFORMED_RESPONSE", nil)
		return
	}
	st.valid, st.view, st.raw = true, view, append([]byte(nil), raw...)
	e.addCost(st, view)
}

func (e *engine) addCost(st *attemptState, v responseView) {
	k := [2]string{st.m.Provider, st.m.Model}
	mc := e.costs[k]
	if mc == nil {
		mc = &ModelCost{Provider: st.m.Provider, Model: st.m.Model}
		e.costs[k] = mc
	}
	mc.Attempts++
	mc.CostUSD += v.CostUSD
	e.res.Cost.TokensInput += int64(v.TokensIn)
	e.res.Cost.TokensOutput += int64(v.TokensOut)
}

// outcome decides how the attempt ended.
func (e *engine) outcome(st *attemptState, att *conform.Attempt) string {
	if st.fatal != "" {
		return st.fatal
	}
	ex := att.Exit
	crashed := ex.Code != 0 || ex.Signal != ""
	if !st.answered {
		if att.Timeout || !att.Terminated.IsZero() || !att.StdinClosed.IsZero() {
			// The orchestrator stopped it (a scenario's cancellation, its deadline):
			// no RESPONSE is owed (bindings).
			return outCancelled
		}
		if crashed {
			e.code("E_PROCESS_CRASH", st.n, true, "the executor ended (exit %d%s) without a RESPONSE", ex.Code, sigSuffix(ex.Signal))
			return "E_PROCESS_CRASH"
		}
		e.violation("AOP2-SEQ-004", st.n, "the executor exited 0 without a RESPONSE")
		e.code("E_MALFORMED_RESPONSE", st.n, true, "the executor exited 0 without a RESPONSE")
		return "E_MALFORMED_RESPONSE"
	}
	if !st.valid {
		// Answered after the attempt ended: st.fatal was set then.
		return "E_MALFORMED_RESPONSE"
	}
	if crashed && att.Terminated.IsZero() {
		e.violation("aop2/bind/exit-zero", st.n, "exit %d%s after the RESPONSE; the binding asks for 0", ex.Code, sigSuffix(ex.Signal))
	}
	v := st.view
	t := e.task
	if t.MaxCostUSD != nil && v.HasCost && v.CostUSD > *t.MaxCostUSD {
		e.code("E_COST_LIMIT_EXCEEDED", st.n, true, "the executor reports $%g; the budget is $%g", v.CostUSD, *t.MaxCostUSD)
		e.violation("AOP2-SEQ-013", st.n, "actual cost $%g over the budget $%g", v.CostUSD, *t.MaxCostUSD)
		return "E_COST_LIMIT_EXCEEDED"
	}
	if t.MaxTokens != nil && v.Tokens > *t.MaxTokens {
		e.code("E_COST_LIMIT_EXCEEDED", st.n, true, "the executor used %d tokens; the budget is %d", v.Tokens, *t.MaxTokens)
		return "E_COST_LIMIT_EXCEEDED"
	}
	if v.Signal == "SUCCESS" || v.Signal == "PARTIAL_SUCCESS" {
		return outSuccess
	}
	code := v.ErrorCode
	if !aop2spec.IsErrorCode(code) {
		code = "E_UNKNOWN"
	}
	e.code(code, st.n, true, "the executor reports %s/%s", v.State, v.Signal)
	return code
}

func sigSuffix(sig string) string {
	if sig == "" {
		return ""
	}
	return ", " + sig
}

// handleDelegation checks a sub-TASK the executor sends (§10): a valid envelope,
// delegation allowed by the sending task, access within its effective access
// (§11.2), a parent of this session, a task id not yet used, depth at most 3.
// Accepted sub-tasks are recorded in the delegation graph and queued: the engine
// dispatches them once the scenario's task has ended (runSubTasks, subtask.go).
func (e *engine) handleDelegation(st *attemptState, raw []byte) {
	sub, problems, _ := ParseTask(raw)
	d := Delegation{TaskID: sub.TaskID, Parent: sub.ParentTaskID, State: "SKIPPED"}
	reject := func(code, format string, args ...any) {
		d.Code = code
		e.code(code, st.n, false, "sub-task %s: %s", d.TaskID, fmt.Sprintf(format, args...))
		e.res.Delegations = append(e.res.Delegations, d)
	}
	for _, p := range problems {
		e.violation(p.Rule, st.n, "sub-task %s: %s", d.TaskID, p)
	}
	if len(problems) > 0 {
		reject("E_SCHEMA_VALIDATION", "%s", problems[0])
		return
	}
	if !e.task.DelegationAllowed {
		e.violation("aop2/10/no-delegation", st.n, "task.constraints.delegation_allowed is false")
		reject("E_PERMISSION_DENIED", "task.constraints.delegation_allowed is false")
		return
	}
	// §11.2: a sub-task gets no wider access than its parent's effective access.
	if !aop2spec.NetworkWithin(sub.Network, e.task.Network) {
		reject("E_PERMISSION_DENIED", "network access %s is wider than the parent's effective %s (§11.2)", sub.Network, e.task.Network)
		return
	}
	// (A parent without filesystem access has empty path lists: any path asked
	// lies outside them.)
	if fs, pfs := sub.Filesystem, e.task.Filesystem; !aop2spec.PathsWithin(fs.Read, pfs.Read) || !aop2spec.PathsWithin(fs.Write, pfs.Write) {
		reject("E_PERMISSION_DENIED", "filesystem access (read %v, write %v) is outside the parent's effective access (§11.2)", fs.Read, fs.Write)
		return
	}
	if _, dup := e.known[d.TaskID]; dup {
		reject("E_SCHEMA_VALIDATION", "task_id %q is already a task of this session", d.TaskID)
		return
	}
	pd, ok := e.known[d.Parent]
	if !ok {
		reject("E_DEPENDENCY_FAILED", "parent_task_id %q is no task of this session", d.Parent)
		return
	}
	d.Depth = pd + 1
	if d.Depth > aop2spec.MaxDelegationDepth {
		e.violation("AOP2-SEQ-011", st.n, "sub-task %s at depth %d; at most %d", d.TaskID, d.Depth, aop2spec.MaxDelegationDepth)
		reject("E_MAX_DEPTH_EXCEEDED", "depth %d; at most %d", d.Depth, aop2spec.MaxDelegationDepth)
		return
	}
	d.Accepted, d.State = true, "PENDING"
	e.known[d.TaskID] = d.Depth
	e.res.Delegations = append(e.res.Delegations, d)
	e.subs = append(e.subs, queuedSub{index: len(e.res.Delegations) - 1, task: sub})
	e.audit.write(time.Now(), "ROUTING_DECISION", orchestratorActor, map[string]any{
		"input_version": "V2", "routed_to": sub.AgentName, "model_selected": sub.Model,
		"fallback_triggered": false, "fallback_reason": nil, "alternatives_tried": []string{},
	}, st.n, nil, "ALLOWED", "", nil)
}
