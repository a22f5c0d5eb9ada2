package aop2

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	aop2lint "github.com/aopkit/aopkit/lint/aop2"
)

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

// dispatchLoop runs attempts: retries of one model with backoff, then fallback to
// the alternative models by trigger, until one succeeds or none is left.
func (e *engine) dispatchLoop(ctx context.Context) {
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
			outcome := e.runAttempt(ctx, n, cur)
			last = outcome
			if outcome == "SUCCESS" {
				return
			}
			if ctx.Err() != nil {
				e.end("ABORTED", "ABORTED")
				return
			}
			if p.AbortOnCritical && IsCritical(outcome) {
				e.code(outcome, n, true, "abort_on_first_critical_error: the session aborts on %s", outcome)
				e.end("ABORTED", "ABORTED")
				return
			}
			if mi+1 < len(models) && immediate(models[mi+1].Trigger, outcome) {
				mi++
				switched = true
				break
			}
			if tries <= p.MaxRetries {
				if !e.backoff(ctx, tries) {
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
		e.audit.write(e.clk.Now(), "ROUTING_DECISION", orchestratorActor, map[string]any{
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

// backoff waits retry_backoff_seconds[retry-1] (the last value repeats).
func (e *engine) backoff(ctx context.Context, retry int) bool {
	b := e.task.Policy.Backoff
	if len(b) == 0 {
		return true
	}
	d := b[min(retry-1, len(b)-1)]
	select {
	case <-ctx.Done():
		return false
	case <-e.clk.After(d):
		return true
	}
}

// attemptState is the engine's view of one running executor.
type attemptState struct {
	n          int
	m          model
	conn       agentio.Conn
	start      time.Time
	fatal      string // the code that ended the attempt
	answered   bool   // a RESPONSE arrived (valid or not)
	valid      bool
	view       responseView
	raw        []byte
	lastBeat   time.Time
	lastProg   time.Time
	hbActive   bool
	timeoutAt  time.Time
	killAt     time.Time
	exitBy     time.Time
	terminated bool
	exited     bool
}

func (e *engine) env() []string {
	env := []string{
		"AOP_PROTOCOL=" + Protocol,
		"AOPKIT_SCRATCH=" + e.cfg.Scratch,
		"AOPKIT_SCENARIO=" + e.cfg.Scenario,
		"AOP2_WORKSPACE=" + e.ws,
	}
	return append(env, e.cfg.Env...)
}

// runAttempt dispatches the TASK to one executor process and watches it until it
// exits. It returns SUCCESS or the error code that ended the attempt.
func (e *engine) runAttempt(ctx context.Context, n int, m model) string {
	p := e.task.Policy
	e.announceEscalations()
	line := e.task.dispatch(m.Provider, m.Model, n, e.priority, e.ws)
	now := e.clk.Now()
	e.audit.write(now, "ROUTING_DECISION", orchestratorActor, map[string]any{
		"input_version": "V2", "routed_to": e.task.AgentName, "model_selected": m.Model,
		"fallback_triggered": m.Trigger != "", "fallback_reason": nilIfEmpty(m.Trigger), "alternatives_tried": e.tried(),
	}, n, nil, "ALLOWED", "", nil)
	var dispatched any
	json.Unmarshal(line, &dispatched)
	e.audit.write(now, "TASK_DISPATCHED", orchestratorActor, dispatched, n, []string{"PAYLOAD_LIMIT", "TIMEOUT"}, "ALLOWED", "", nil)

	at := Attempt{N: n, Provider: m.Provider, Model: m.Model, Trigger: m.Trigger, Started: now}
	st := &attemptState{n: n, m: m, start: now, lastBeat: now, hbActive: p.Heartbeat}
	timeout := p.Timeout
	if timeout == 0 {
		timeout = e.cfg.DefaultTimeout
	}
	if timeout > 0 {
		st.timeoutAt = now.Add(timeout)
	}
	conn, err := e.cfg.Launcher.Launch(ctx, agentio.Spec{Dir: e.cfg.Scratch, Env: e.env(), Args: e.cfg.Args})
	if err != nil {
		e.code("E_AGENT_NOT_FOUND", n, true, "cannot start the executor: %v", err)
		at.Outcome, at.ExitCode, at.Ended = "E_AGENT_NOT_FOUND", -1, e.clk.Now()
		e.res.Attempts = append(e.res.Attempts, at)
		return at.Outcome
	}
	st.conn = conn
	e.rec.Event(now, "agent-start", map[string]any{"attempt": n, "provider": m.Provider, "model": m.Model})
	e.rec.Line(now, "orchestrator", "stdin", line)
	if err := conn.Send(line); err != nil {
		e.violation("aop2/bind/read-task", n, "the executor did not read its TASK: %v", err)
	}
	e.watch(ctx, st)
	ex := conn.Exit()
	end := e.clk.Now()
	e.rec.Event(end, "agent-exit", exitDetail(ex))
	outcome := e.outcome(st, ex)
	at.Outcome, at.ExitCode, at.Signal, at.Ended = outcome, ex.Code, ex.Signal, end
	e.res.Attempts = append(e.res.Attempts, at)
	if outcome == "SUCCESS" {
		e.res.Response = json.RawMessage(st.raw)
		e.end("COMPLETED", st.view.Signal)
	}
	return outcome
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func exitDetail(ex agentio.Exit) map[string]any {
	d := map[string]any{"code": ex.Code}
	if ex.Signal != "" {
		d["signal"] = ex.Signal
	}
	if ex.Err != nil {
		d["error"] = ex.Err.Error()
	}
	return d
}

// watch is the event loop of one attempt: the executor's lines, its exit, and the
// engine's timers (timeout, heartbeat, kill after grace, exit after the RESPONSE,
// priority escalations).
func (e *engine) watch(ctx context.Context, st *attemptState) {
	p := e.task.Policy
	lines, done := st.conn.Lines(), st.conn.Done()
	ctxDone := ctx.Done()
	var drainBy time.Time
	for lines != nil || done != nil {
		now := e.clk.Now()
		var next time.Time
		consider := func(t time.Time) {
			if !t.IsZero() && (next.IsZero() || t.Before(next)) {
				next = t
			}
		}
		if !st.answered && st.fatal == "" {
			consider(st.timeoutAt)
			if st.hbActive {
				consider(st.lastBeat.Add(time.Duration(p.MaxMissedBeats) * p.HeartbeatInterval))
			}
		}
		if !st.exited {
			consider(st.killAt)
			consider(st.exitBy)
		}
		consider(drainBy)
		consider(e.nextEscalation())
		var timer <-chan time.Time
		if !next.IsZero() {
			timer = e.clk.After(next.Sub(now))
		}
		select {
		case <-ctxDone:
			ctxDone = nil
			if st.fatal == "" {
				st.fatal = "E_UNKNOWN"
				e.code("E_UNKNOWN", st.n, true, "the orchestrator was cancelled: %v", ctx.Err())
			}
			st.conn.Kill()
			e.rec.Event(e.clk.Now(), "kill", map[string]any{"reason": "cancelled"})
		case l, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			e.handleLine(st, l)
		case <-done:
			done = nil
			st.exited = true
			if lines != nil {
				drainBy = e.clk.Now().Add(e.cfg.Grace)
			}
		case <-timer:
			now = e.clk.Now()
			e.announceEscalations()
			if !drainBy.IsZero() && !now.Before(drainBy) {
				lines = nil // the executor exited; its descendants keep the pipes open
				continue
			}
			e.timers(st, now)
		}
	}
}

// timers acts on every engine timer that is due at now.
func (e *engine) timers(st *attemptState, now time.Time) {
	p := e.task.Policy
	if !st.answered && st.fatal == "" && !st.timeoutAt.IsZero() && !now.Before(st.timeoutAt) {
		e.rec.Event(now, "timeout", map[string]any{"after_seconds": int(now.Sub(st.start) / time.Second), "from": p.TimeoutFrom})
		e.audit.write(now, "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "TIMEOUT", "result": "FAIL", "details": fmt.Sprintf("no RESPONSE within %s (%s)", now.Sub(st.start), orDefault(p.TimeoutFrom, "engine default")), "error_code": "E_TIMEOUT"}, st.n, []string{"TIMEOUT"}, "N/A", "E_TIMEOUT", nil)
		if p.AutoTerminate {
			st.fatal = "E_TIMEOUT"
			e.code("E_TIMEOUT", st.n, true, "no RESPONSE within %s; auto_terminate_on_timeout kills the executor", now.Sub(st.start))
			e.violation("AOP2-SEQ-010", st.n, "no RESPONSE within the effective timeout %s", now.Sub(st.start))
			e.terminate(st, now)
		} else {
			e.code("E_TIMEOUT", st.n, false, "no RESPONSE within %s; auto_terminate_on_timeout is false, the executor runs on", now.Sub(st.start))
			e.violation("AOP2-SEQ-010", st.n, "no RESPONSE within the effective timeout %s", now.Sub(st.start))
			st.timeoutAt = time.Time{}
		}
	}
	if !st.answered && st.fatal == "" && st.hbActive {
		window := time.Duration(p.MaxMissedBeats) * p.HeartbeatInterval
		if !now.Before(st.lastBeat.Add(window)) {
			detail := fmt.Sprintf("no HEARTBEAT for %s (%d × %s)", now.Sub(st.lastBeat), p.MaxMissedBeats, p.HeartbeatInterval)
			e.violation("AOP2-SEQ-005", st.n, "%s", detail)
			result := "FAIL"
			switch p.OnHeartbeatFailure {
			case "ABORT":
				st.fatal = "E_HEARTBEAT_FAILURE"
				e.code("E_HEARTBEAT_FAILURE", st.n, true, "%s; on_heartbeat_failure ABORT", detail)
				e.terminate(st, now)
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
	}
	if !st.exited && !st.exitBy.IsZero() && !now.Before(st.exitBy) {
		st.exitBy = time.Time{}
		e.violation("aop2/bind/exit-after-response", st.n, "the executor did not exit within %s of its RESPONSE", e.cfg.Grace)
		e.terminate(st, now)
	}
	if !st.exited && !st.killAt.IsZero() && !now.Before(st.killAt) {
		st.killAt = time.Time{}
		st.conn.Kill()
		e.rec.Event(now, "kill", map[string]any{"signal": "SIGKILL", "after_grace_seconds": e.cfg.Grace.Seconds()})
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// terminate sends SIGTERM and arms the SIGKILL after the grace period.
func (e *engine) terminate(st *attemptState, now time.Time) {
	if st.terminated || st.exited {
		return
	}
	st.terminated = true
	st.conn.Terminate()
	e.rec.Event(now, "signal", map[string]any{"signal": "SIGTERM"})
	st.killAt = now.Add(e.cfg.Grace)
}

// handleLine records and interprets one line of the executor.
func (e *engine) handleLine(st *attemptState, l agentio.Line) {
	e.rec.Line(l.At, "agent", l.Stream, l.Data)
	if l.Stream != "stdout" {
		return // stderr is free
	}
	if l.Truncated {
		e.code("E_CONTEXT_OVERFLOW", st.n, false, "a stdout line over %d bytes was cut", len(l.Data))
		e.violation("AOP2-LIMIT-003", st.n, "a stdout line was longer than the harness reads")
		return
	}
	trimmed := trimSpace(l.Data)
	if len(trimmed) == 0 {
		return
	}
	m, err := decodeObject(trimmed)
	if err != nil {
		if trimmed[0] == '{' || trimmed[0] == '[' {
			e.code("E_PARSE_FAILURE", st.n, false, "a stdout line looks like JSON but does not parse: %v", err)
			e.violation("GEN-JSON-001", st.n, "%v", err)
		} else {
			e.violation("GEN-DETECT-002", st.n, "non-JSON stdout kept as a log line: %.60q", trimmed)
		}
		return
	}
	switch mt, _ := str(m, "message_type"); mt {
	case "EVENT":
		e.handleEvent(st, l, m)
	case "RESPONSE":
		e.handleResponse(st, l, m, trimmed)
	case "TASK":
		e.handleDelegation(st, m, trimmed)
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

func (e *engine) handleEvent(st *attemptState, l agentio.Line, m map[string]any) {
	for _, p := range checkHeader(m, false) {
		e.violation(p.Rule, st.n, "%s", p)
	}
	if sid, _ := str(m, "session_id"); sid != e.task.SessionID {
		e.violation("AOP2-SEQ-001", st.n, "event session_id %q is not the TASK's %q; ignored", sid, e.task.SessionID)
		return
	}
	if tid, _ := str(m, "task_id"); tid != e.task.TaskID {
		e.violation("AOP2-SEQ-001", st.n, "event task_id %q is not the TASK's %q; ignored", tid, e.task.TaskID)
		return
	}
	if ts, _ := str(m, "timestamp"); !validTimestamp(ts) {
		e.violation("AOP2-TIME-001", st.n, "timestamp %q is not ISO 8601 UTC (2026-02-26T12:37:01Z)", ts)
	}
	ev, _ := str(m, "event")
	if !executorEvents[ev] {
		e.violation("AOP2-ENVELOPE-006", st.n, "event %q is not an executor event (HEARTBEAT, PROGRESS_UPDATE); ignored", ev)
		return
	}
	p := e.task.Policy
	switch ev {
	case "HEARTBEAT":
		if gap := l.At.Sub(st.lastBeat); p.Heartbeat && gap > p.HeartbeatInterval*11/10 {
			e.violation("AOP2-SEQ-006", st.n, "a HEARTBEAT came %s after the previous one; the interval is %s", gap, p.HeartbeatInterval)
		}
		st.lastBeat = l.At
	case "PROGRESS_UPDATE":
		if !st.lastProg.IsZero() && l.At.Sub(st.lastProg) < ProgressInterval-500*time.Millisecond {
			e.violation("AOP2-SEQ-007", st.n, "PROGRESS_UPDATE %s after the previous one; at most one per 30 s", l.At.Sub(st.lastProg))
			return // the engine drops the extra update
		}
		st.lastProg = l.At
	}
}

func validTimestamp(s string) bool {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return false
	}
	_, off := t.Zone()
	return off == 0
}

func (e *engine) handleResponse(st *attemptState, l agentio.Line, m map[string]any, raw []byte) {
	if st.answered {
		e.violation("AOP2-SEQ-009", st.n, "a second RESPONSE; the first one stands")
		return
	}
	st.answered = true
	st.exitBy = l.At.Add(e.cfg.Grace)
	if st.fatal != "" {
		e.violation("aop2/5/final-response", st.n, "a RESPONSE after the attempt ended with %s; ignored", st.fatal)
		return
	}
	e.audit.write(l.At, "RESPONSE_RECEIVED", executorActor(e.task.AgentName, st.m.Provider, st.m.Model), m, st.n, []string{"FINAL_SIGNAL", "MINIMAL_REPORT"}, "N/A", "", nil)
	if size := aop2lint.CompactSize(raw); size > MaxResponseBytes {
		st.fatal = "E_CONTEXT_OVERFLOW"
		e.code("E_CONTEXT_OVERFLOW", st.n, true, "the RESPONSE is %d bytes; the limit is %d (500KB)", size, MaxResponseBytes)
		e.violation("AOP2-LIMIT-003", st.n, "RESPONSE of %d bytes", size)
		return
	}
	view, problems := checkResponse(m, e.task, st.m.Provider, st.m.Model)
	var fatal []Problem
	for _, p := range problems {
		e.violation(p.Rule, st.n, "%s", p)
		if fatalRules[p.Rule] {
			fatal = append(fatal, p)
		}
	}
	if view.Actions > MaxActions {
		e.code("E_PAYLOAD_SIZE_WARNING", st.n, false, "execution_summary.actions has %d items; the limit is %d", view.Actions, MaxActions)
	}
	if len(fatal) > 0 {
		st.fatal = "E_MALFORMED_RESPONSE"
		e.code("E_MALFORMED_RESPONSE", st.n, true, "%s", fatal[0])
		e.audit.write(l.At, "GUARD_RAIL_CHECK", governanceActor, map[string]any{"check_type": "FINAL_SIGNAL", "result": "FAIL", "details": fatal[0].String(), "error_code": "E_MALFORMED_RESPONSE"}, st.n, []string{"FINAL_SIGNAL", "MINIMAL_REPORT"}, "N/A", "E_MALFORMED_RESPONSE", nil)
		return
	}
	st.valid, st.view, st.raw = true, view, append([]byte(nil), raw...)
	e.addCost(st, view, m)
}

func (e *engine) addCost(st *attemptState, v responseView, m map[string]any) {
	k := [2]string{st.m.Provider, st.m.Model}
	mc := e.costs[k]
	if mc == nil {
		mc = &ModelCost{Provider: st.m.Provider, Model: st.m.Model}
		e.costs[k] = mc
	}
	mc.Attempts++
	mc.CostUSD += v.CostUSD
	if ct := object(m, "cost_tracking"); ct != nil {
		in, _ := num(ct, "tokens_input")
		out, _ := num(ct, "tokens_output")
		e.res.Cost.TokensInput += int64(in)
		e.res.Cost.TokensOutput += int64(out)
	}
}

// outcome decides how the attempt ended.
func (e *engine) outcome(st *attemptState, ex agentio.Exit) string {
	if st.fatal != "" {
		return st.fatal
	}
	crashed := ex.Code != 0 || ex.Signal != ""
	if !st.answered {
		if crashed {
			e.code("E_PROCESS_CRASH", st.n, true, "the executor ended (exit %d%s) without a RESPONSE", ex.Code, sigSuffix(ex.Signal))
			return "E_PROCESS_CRASH"
		}
		e.violation("AOP2-SEQ-004", st.n, "the executor exited 0 without a RESPONSE")
		e.code("E_MALFORMED_RESPONSE", st.n, true, "the executor exited 0 without a RESPONSE")
		return "E_MALFORMED_RESPONSE"
	}
	if crashed && !st.terminated {
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
		return "SUCCESS"
	}
	code := v.ErrorCode
	if !errorCodes[code] {
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
// delegation allowed, depth at most 3. Accepted sub-tasks are recorded in the
// delegation graph; the engine does not run them.
func (e *engine) handleDelegation(st *attemptState, m map[string]any, raw []byte) {
	sub, problems, _ := ParseTask(raw)
	d := Delegation{TaskID: sub.TaskID, Parent: sub.ParentTaskID}
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
	pd, ok := e.known[d.Parent]
	if !ok {
		reject("E_DEPENDENCY_FAILED", "parent_task_id %q is no task of this session", d.Parent)
		return
	}
	d.Depth = pd + 1
	if d.Depth > MaxDelegationDepth {
		e.violation("AOP2-SEQ-011", st.n, "sub-task %s at depth %d; at most %d", d.TaskID, d.Depth, MaxDelegationDepth)
		reject("E_MAX_DEPTH_EXCEEDED", "depth %d; at most %d", d.Depth, MaxDelegationDepth)
		return
	}
	d.Accepted = true
	e.known[d.TaskID] = d.Depth
	e.res.Delegations = append(e.res.Delegations, d)
	e.audit.write(e.clk.Now(), "ROUTING_DECISION", orchestratorActor, map[string]any{
		"input_version": "V2", "routed_to": sub.AgentName, "model_selected": sub.Model,
		"fallback_triggered": false, "fallback_reason": nil, "alternatives_tried": []string{},
	}, st.n, nil, "ALLOWED", "", nil)
}

// nextEscalation is when the next scripted priority escalation is due.
func (e *engine) nextEscalation() time.Time {
	if len(e.escs) == 0 {
		return time.Time{}
	}
	return e.start.Add(e.escs[0].After)
}

// announceEscalations emits PRIORITY_ESCALATION for every escalation that is due
// (§8); the next dispatch carries the new priority.
func (e *engine) announceEscalations() {
	now := e.clk.Now()
	for len(e.escs) > 0 && !now.Before(e.start.Add(e.escs[0].After)) {
		es := e.escs[0]
		e.escs = e.escs[1:]
		if indexOf(priorities, es.Priority) < 0 || es.Priority == e.priority {
			continue
		}
		e.emit(map[string]any{"event": "PRIORITY_ESCALATION", "old_priority": e.priority, "new_priority": es.Priority,
			"reason": orDefault(es.Reason, "scripted escalation"), "escalated_by": orDefault(es.By, "aopkit-engine")})
		e.priority = es.Priority
	}
}
