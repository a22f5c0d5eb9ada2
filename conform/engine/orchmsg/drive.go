package orchmsg

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// Drive plays the orchestrator against the agent through the harness: it sends
// notify:task-assigned, answers the agent's requests, keeps the request timeouts,
// the rate limit and the engine's timers (task and idle timeout, shutdown after
// the task, the grace period after notify:shutdown), and performs the scenario's
// "cancel" and "shutdown" steps. It returns an error only when the harness fails.
func Drive(h *harness.H) error {
	e, payload, err := newEngine(h)
	if err != nil {
		return err
	}
	assigned, _ := json.Marshal(e.notification("notify:task-assigned", payload))
	a, err := h.Launch(assigned, "ORCHMSG_AGENT_ID="+AgentID)
	if err != nil {
		return err
	}
	e.a = a
	a.Send(assigned)
	return a.Run(harness.Handler{Key: Key, Done: e.done, OnLine: e.onLine, Act: e.act, Monitor: e.monitor})
}

// Key names an orchmsg message by its type.
func Key(r *conform.Record) string {
	m := r.Obj()
	if m == nil {
		return ""
	}
	t, _ := m["type"].(string)
	return t
}

// TaskOver reports whether an agent message m says the task it names is over:
// progress 1, or an unrecoverable event:error (lint/spec/orchmsg.CompletesTask).
func TaskOver(m map[string]any) (taskID string, over bool) {
	typ, _ := m["type"].(string)
	p, _ := m["payload"].(map[string]any)
	if p == nil {
		return "", false
	}
	taskID, _ = p["taskId"].(string)
	prog, hasProg := p["progress"].(float64)
	rec, hasRec := p["recoverable"].(bool)
	return taskID, spec.CompletesTask(typ, prog, hasProg, rec, hasRec)
}

// done arms the scenario's steps "on":"done": the agent reported its assigned task over.
func (e *engine) done(r *conform.Record) bool {
	id, over := TaskOver(r.Obj())
	return over && id == e.taskID
}

// onLine routes one line of the agent (§Parsing Strategy): JSON with a string
// type goes to the message handler; anything else is log output.
func (e *engine) onLine(a *harness.Agent, r conform.Record) {
	if r.Stream != "stdout" {
		return
	}
	if r.Truncated {
		e.decision("dropped", map[string]any{"seq": r.Seq, "reason": fmt.Sprintf("a line over %d bytes is cut and lost", spec.MaxMessage)})
		return
	}
	m := r.Obj()
	typ, ok := m["type"].(string)
	if m == nil || !ok {
		return // log output
	}
	e.lastMsg = r.Time
	id, hasID := m["id"]
	if over, _, _ := e.rate.Add(r.Time, struct{}{}); over && e.fault != FaultIgnoreRateLimit {
		if !e.limited {
			e.limited = true
			e.decision("rate-limited", map[string]any{"seq": r.Seq, "limit_per_second": spec.RateLimit})
		}
		if spec.Family(typ) == spec.Request && hasID {
			e.fail(id, "INTERNAL_ERROR", fmt.Sprintf("Rate limit exceeded: at most %d messages per second", spec.RateLimit), map[string]any{"limit": spec.RateLimit})
		}
		return
	}
	switch spec.Family(typ) {
	case spec.Request:
		e.request(r, m, typ, id, hasID)
	case spec.Event:
		e.event(typ, m)
	}
	// response:* and notify:* travel the other way, and other types are none of
	// the protocol's: ignored (the checks and aoplint report them).
}

// request answers one request, or leaves it pending.
func (e *engine) request(r conform.Record, m map[string]any, typ string, id any, hasID bool) {
	if !hasID {
		return // nothing to correlate an answer with
	}
	sid, ok := id.(string)
	if !ok || sid == "" {
		// A correlationId is a string naming the request: nothing answers this one.
		e.decision("not-answered", map[string]any{"seq": r.Seq, "reason": "the request id is not a non-empty string"})
		return
	}
	if e.seenIDs[sid] {
		// Each request id gets exactly one response: a reused id is not answered
		// again (the agent's own timeout ends its wait).
		e.decision("not-answered", map[string]any{"seq": r.Seq, "reason": "request id " + sid + " was used before"})
		return
	}
	e.seenIDs[sid] = true
	if aid, ok := m["agentId"].(string); ok && aid != AgentID {
		e.fail(sid, "UNAUTHORIZED", "agentId does not match the agent", map[string]any{"agentId": aid})
		return
	}
	if e.withheld[typ] {
		// The scenario's orchestrator cannot answer this request: it times out.
		d := spec.RequestDeadline(typ, 0)
		e.pending = append(e.pending, &pending{id: sid, typ: typ, deadline: time.Now().Add(d), timeout: d})
		e.h.Event(e.a.N(), "withheld", map[string]any{"request_seq": r.Seq, "type": typ})
		return
	}
	if e.rejected[typ] {
		e.fail(sid, "UNAUTHORIZED", "Agent not authorized for "+typ, map[string]any{"type": typ})
		return
	}
	e.handleRequest(sid, typ, m)
}

// event follows the agent's events: progress 1 or an unrecoverable error on the
// assigned task ends it.
func (e *engine) event(typ string, m map[string]any) {
	id, over := TaskOver(m)
	if !over || id != e.taskID || e.taskState != "incomplete" {
		return
	}
	e.taskState = "completed"
	if typ == "event:error" {
		e.taskState = "failed"
	}
	if t := e.tasks[e.taskID]; t != nil {
		t.Status = e.taskState
		t.Result = map[string]any{"success": e.taskState == "completed"}
	}
	e.scheduleShutdown(e.scaled(e.world.ShutdownDelay, DefaultShutdownDelay))
}

// scheduleShutdown decides on notify:shutdown after d, unless one is decided on
// already or the world keeps the agent alive.
func (e *engine) scheduleShutdown(d time.Duration) {
	if e.world.KeepAlive || !e.shutdownAt.IsZero() {
		return
	}
	e.shutdownAt = time.Now().Add(d)
}

// act performs the scenario's orchmsg steps.
func (e *engine) act(a *harness.Agent, st conform.Step) error {
	switch st.Do {
	case "cancel":
		e.cancel(orDefault(st.Reason, "Cancelled by the conformance harness"))
	case "shutdown":
		g := st.Grace.D(e.h.ScaleFactor())
		if g <= 0 {
			g = e.h.Grace()
		}
		e.shutdown(orDefault(st.Reason, "Orchestrator stopping"), g)
	default:
		return harness.Errorf("scenario %s: step %q does not apply to orchmsg", e.h.Scenario().ID, st.Do)
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// cancel sends notify:task-cancelled for the assigned task (once) and decides on
// the shutdown after the cancel grace.
func (e *engine) cancel(reason string) {
	att := e.a.Attempt()
	if !att.CancelledAt.IsZero() {
		return
	}
	att.CancelledAt = time.Now()
	e.cancelled[e.taskID] = att.CancelledAt
	e.notify("notify:task-cancelled", map[string]any{"taskId": e.taskID, "reason": reason})
	if t := e.tasks[e.taskID]; t != nil {
		t.Status = "cancelled"
	}
	if e.taskState == "incomplete" {
		e.taskState = "cancelled"
	}
	e.scheduleShutdown(e.scaled(e.world.CancelGrace, DefaultCancelGrace))
}

// shutdown sends notify:shutdown (once) with the grace period g; when it is over
// the agent is stopped (SIGTERM, then SIGKILL after the harness's grace).
func (e *engine) shutdown(reason string, g time.Duration) {
	att := e.a.Attempt()
	if !att.ShutdownAt.IsZero() {
		return
	}
	att.ShutdownAt, att.ShutdownFor = time.Now(), g
	e.notify("notify:shutdown", map[string]any{"gracePeriod": g.Milliseconds(), "reason": reason})
	e.h.Fact("orchmsg.shutdown_grace_ms", g.Milliseconds())
	if e.fault == FaultNoShutdownGrace {
		e.a.TerminateAt(time.Now())
		return
	}
	e.a.TerminateAt(time.Now().Add(g))
}

// monitor keeps the engine's timers; it returns when it next wants to run.
func (e *engine) monitor(a *harness.Agent, now time.Time) time.Time {
	var next time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	keep := e.pending[:0]
	for _, p := range e.pending {
		switch {
		case !p.answerAt.IsZero() && !now.Before(p.answerAt):
			e.success(p.id, map[string]any{"answer": p.answer, "metadata": map[string]any{"answeredAt": stamp()}})
		case !now.Before(p.deadline):
			e.fail(p.id, "TIMEOUT", "Request timed out", map[string]any{"timeoutMs": p.timeout.Milliseconds()})
		default:
			keep = append(keep, p)
			consider(p.answerAt)
			consider(p.deadline)
		}
	}
	e.pending = keep
	if alive := a.Attempt().Alive; e.taskState == "incomplete" && !alive.IsZero() && !e.timedOut {
		if e.world.TaskTimeout > 0 {
			at := alive.Add(e.world.TaskTimeout.D(e.h.ScaleFactor()))
			if !now.Before(at) {
				e.timedOut = true
				e.decision("task-timeout", map[string]any{"after_ms": e.world.TaskTimeout.D(e.h.ScaleFactor()).Milliseconds()})
				e.cancel("Task timed out")
			} else {
				consider(at)
			}
		}
		if e.world.IdleTimeout > 0 && !e.timedOut {
			from := e.lastMsg
			if from.IsZero() {
				from = alive
			}
			at := from.Add(e.world.IdleTimeout.D(e.h.ScaleFactor()))
			if !now.Before(at) {
				e.timedOut = true
				e.decision("idle-timeout", map[string]any{"silent_ms": now.Sub(from).Milliseconds()})
				e.cancel("No progress for " + e.world.IdleTimeout.D(e.h.ScaleFactor()).String())
			} else {
				consider(at)
			}
		}
	}
	if !e.shutdownAt.IsZero() {
		if !now.Before(e.shutdownAt) {
			e.shutdownAt = time.Time{}
			e.shutdown("Orchestrator stopping", e.h.Grace())
		} else {
			consider(e.shutdownAt)
		}
	}
	if t := a.TerminateDue(); !t.IsZero() {
		if !now.Before(t) {
			a.Terminate("shutdown grace period over")
		} else {
			consider(t)
		}
	}
	return next
}

// askUser forwards the question to the scripted user; the answer comes after its
// delay, or response:error TIMEOUT once the question's timeout has passed
// (lint/spec/orchmsg.RequestDeadline).
func (e *engine) askUser(id string, p map[string]any) {
	if q, _ := p["question"].(string); q == "" {
		e.invalid(id, "request:ask-user", "payload.question is required", nil)
		return
	}
	ms, isNum := p["timeout"].(float64)
	if v, ok := p["timeout"]; ok && (!isNum || ms <= 0) {
		e.invalid(id, "request:ask-user", "timeout must be a positive number of milliseconds", map[string]any{"timeout": v})
		return
	}
	timeout := spec.RequestDeadline("request:ask-user", ms)
	now := time.Now()
	q := &pending{id: id, typ: "request:ask-user", deadline: now.Add(timeout), timeout: timeout}
	switch {
	case len(e.answers) > 0:
		ans := e.answers[0]
		e.answers = e.answers[1:]
		if d := ans.After.D(e.h.ScaleFactor()); d < timeout {
			q.answerAt, q.answer = now.Add(d), ans.Answer
		}
	case !e.world.User.Silent:
		q.answerAt, q.answer = now, firstOption(p)
	}
	if !q.answerAt.IsZero() && !now.Before(q.answerAt) {
		e.success(id, map[string]any{"answer": q.answer, "metadata": map[string]any{"answeredAt": stamp()}})
		return
	}
	e.pending = append(e.pending, q)
}

// firstOption is the value of the question's first option, or "yes".
func firstOption(p map[string]any) string {
	if opts, ok := p["options"].([]any); ok && len(opts) > 0 {
		if o, ok := opts[0].(map[string]any); ok {
			if v, ok := o["value"].(string); ok && strings.TrimSpace(v) != "" {
				return v
			}
		}
	}
	return "yes"
}
