package orchmsg

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// Drive plays the orchestrator against the agent through the harness: it sends
// notify:task-assigned, answers the agent's requests, keeps the request timeouts,
// the rate limit and the engine's timers (task and idle timeout, shutdown after
// the task, the grace period after notify:shutdown), and performs the scenario's
// "cancel" and "shutdown" steps. With a team (World.Team) it launches every
// member and drives them at once, scheduling submitted tasks. It returns an error
// only when the harness fails.
func Drive(h *harness.H) error {
	e, payload, err := newEngine(h)
	if err != nil {
		return err
	}
	for i, m := range e.members {
		var first []byte
		switch {
		case i == 0:
			if id, ok := payload["taskId"].(string); ok && e.fault == FaultWrongTaskID {
				payload["taskId"] = id + "-other"
			}
			first, _ = json.Marshal(m.notification("notify:task-assigned", payload))
		case m.taskID != "":
			first, _ = json.Marshal(m.notification("notify:task-assigned", map[string]any{"taskId": m.taskID, "message": "Task assigned. Use TaskGet to view details."}))
		}
		a, err := h.Launch(first, "ORCHMSG_AGENT_ID="+m.id)
		if err != nil {
			e.stopLaunched()
			return err
		}
		m.a = a
		if first != nil {
			a.Send(first)
		}
	}
	if !e.team() {
		return e.members[0].run()
	}
	errs := make([]error, len(e.members))
	var wg sync.WaitGroup
	for i, m := range e.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.run()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// stopLaunched kills the members already launched when a later launch failed.
func (e *engine) stopLaunched() {
	for _, m := range e.members {
		if m.a != nil {
			m.a.Kill("another agent of the team could not be launched")
		}
	}
}

// run drives the member's agent until it exits.
func (m *member) run() error {
	err := m.a.Run(harness.Handler{Key: Key, Done: m.done, OnLine: m.onLine, Act: m.act, Monitor: m.monitor})
	e := m.e
	e.mu.Lock()
	defer e.mu.Unlock()
	m.gone = true
	if e.team() {
		if m.taskState == "incomplete" {
			// Its agent is gone: the task failed.
			m.end("failed")
		}
		e.settle()
	}
	return err
}

// Key names an orchmsg message by its type.
func Key(r *conform.Record) string {
	if m, err := spec.Decode(r.Msg); err == nil {
		return m.Type.V
	}
	return ""
}

// TaskOver reports whether an agent message m (nil: none) says the task its
// payload names is over: progress 1, or an unrecoverable event:error
// (lint/spec/orchmsg's Message.Completes); never when it has no payload object.
func TaskOver(m *spec.Message) (taskID string, over bool) {
	if m == nil || !m.Payload.OK {
		return "", false
	}
	return m.Payload.V.TaskID.V, m.Completes()
}

// done arms the scenario's steps "on":"done": the agent reported its task over.
func (m *member) done(r *conform.Record) bool {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	msg, _ := spec.Decode(r.Msg)
	id, over := TaskOver(msg)
	return over && id != "" && id == m.taskID
}

// onLine routes one line of the agent (§Parsing Strategy): JSON with a string
// type goes to the message handler; anything else is log output.
func (m *member) onLine(a *harness.Agent, r conform.Record) {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	if r.Stream != "stdout" {
		return
	}
	if r.Truncated {
		m.decision("dropped", conform.KeySeq.Is(r.Seq), conform.KeyReason.Is(fmt.Sprintf("a line over %d bytes is cut and lost", spec.MaxMessage)))
		return
	}
	together := !m.lastLine.IsZero() && r.Time.Sub(m.lastLine) < 2*time.Millisecond
	m.lastLine = r.Time
	if together && m.e.fault == FaultParseChunks {
		// The line came in the same read as the one before it: a host that
		// parses each chunk whole fails on the pair and logs it as text.
		m.decision("dropped", conform.KeySeq.Is(r.Seq), conform.KeyReason.Is("the line arrived in one chunk with the line before it, and the chunk is no JSON document"))
		return
	}
	msg, err := spec.Decode(r.Msg)
	if err != nil || !msg.Type.OK {
		return // log output
	}
	typ := msg.Type.V
	m.lastMsg = r.Time
	// The id as sent, string or not: an answer's correlationId echoes it.
	id, hasID := msg.ID.Any(), msg.ID.Has()
	if over, _, _ := m.rate.Add(r.Time, struct{}{}); over && m.e.fault != FaultIgnoreRateLimit {
		if !m.limited {
			m.limited = true
			m.decision("rate-limited", conform.KeySeq.Is(r.Seq), conform.KeyLimitPerSecond.Is(spec.RateLimit))
		}
		if spec.Family(typ) == spec.Request && hasID {
			m.fail(id, "INTERNAL_ERROR", fmt.Sprintf("Rate limit exceeded: at most %d messages per second", spec.RateLimit), map[string]any{"limit": spec.RateLimit})
		}
		return
	}
	switch spec.Family(typ) {
	case spec.Request:
		m.request(r, msg, typ, id, hasID)
	case spec.Event:
		m.event(typ, msg)
	}
	// response:* and notify:* travel the other way, and other types are none of
	// the protocol's: ignored (the checks and aoplint report them).
}

// request answers one request, or leaves it pending.
func (m *member) request(r conform.Record, msg *spec.Message, typ string, id any, hasID bool) {
	if !hasID {
		return // nothing to correlate an answer with
	}
	sid, ok := msg.ID.Get()
	if !ok || sid == "" {
		// A correlationId is a string naming the request: nothing answers this one.
		m.decision("not-answered", conform.KeySeq.Is(r.Seq), conform.KeyReason.Is("the request id is not a non-empty string"))
		return
	}
	if m.seenIDs[sid] {
		// Each request id gets exactly one response: a reused id is not answered
		// again (the agent's own timeout ends its wait).
		m.decision("not-answered", conform.KeySeq.Is(r.Seq), conform.KeyReason.Is("request id "+sid+" was used before"))
		return
	}
	m.seenIDs[sid] = true
	if aid, ok := msg.AgentID.Get(); ok && aid != m.id {
		m.fail(sid, "UNAUTHORIZED", "agentId does not match the agent", map[string]any{"agentId": aid})
		return
	}
	if m.e.withheld[typ] {
		// The scenario's orchestrator cannot answer this request: it times out.
		d := spec.RequestDeadline(typ, 0)
		m.pending = append(m.pending, &pending{id: sid, typ: typ, deadline: time.Now().Add(d), timeout: d})
		m.e.h.Event(m.a.N(), conform.EventWithheld, conform.Details(conform.KeyRequestSeq.Is(r.Seq), conform.KeyType.Is(typ)))
		return
	}
	if m.e.rejected[typ] {
		m.fail(sid, "UNAUTHORIZED", "Agent not authorized for "+typ, map[string]any{"type": typ})
		return
	}
	m.handleRequest(sid, typ, msg, r.Msg)
}

// event follows the agent's events: progress 1 or an unrecoverable error on its
// task ends it.
func (m *member) event(typ string, msg *spec.Message) {
	id, over := TaskOver(msg)
	if !over || id != m.taskID || m.taskState != "incomplete" {
		return
	}
	if typ == "event:error" {
		m.end("failed")
	} else {
		m.end("completed")
	}
	if m.e.team() {
		m.e.settle()
		return
	}
	m.scheduleShutdown(m.e.scaled(m.e.world.ShutdownDelay, DefaultShutdownDelay))
}

// end records the end of the member's task.
func (m *member) end(state string) {
	m.taskState = state
	if t := m.e.tasks[m.taskID]; t != nil {
		t.Status = state
		if state != "cancelled" {
			t.Result = map[string]any{"success": state == "completed"}
		}
	}
}

// scheduleShutdown decides on notify:shutdown after d, unless one is decided on
// already or the world keeps the agent alive.
func (m *member) scheduleShutdown(d time.Duration) {
	if m.e.world.KeepAlive || !m.shutdownAt.IsZero() {
		return
	}
	m.shutdownAt = time.Now().Add(d)
}

// post leaves work for the member's own goroutine and wakes it.
func (m *member) post(f func()) {
	m.inbox = append(m.inbox, f)
	m.a.Wake()
}

// settle is the team's scheduler: it assigns queued tasks whose dependencies are
// completed to idle members of the right role and capabilities, and when no task
// runs and none can, decides on everyone's shutdown.
func (e *engine) settle() {
	var keep []string
	for _, id := range e.queue {
		t := e.tasks[id]
		if m := e.idleFor(t); m != nil && e.ready(t) {
			m.take(t)
			m.post(func() {
				m.notify("notify:task-assigned", map[string]any{"taskId": t.ID, "message": "Task assigned. Use TaskGet to view details."})
			})
			continue
		}
		keep = append(keep, id)
	}
	e.queue = keep
	for _, m := range e.members {
		if !m.gone && m.taskState == "incomplete" {
			return
		}
	}
	for _, id := range e.queue {
		if e.ready(e.tasks[id]) && e.idleFor(e.tasks[id]) != nil {
			return
		}
	}
	d := e.scaled(e.world.ShutdownDelay, DefaultShutdownDelay)
	for _, m := range e.members {
		if !m.gone {
			m.post(func() { m.scheduleShutdown(d) })
		}
	}
}

// ready reports whether every dependency of t is completed.
func (e *engine) ready(t *Task) bool {
	for _, d := range t.Dependencies {
		if dep := e.tasks[d]; dep == nil || dep.Status != "completed" {
			return false
		}
	}
	return true
}

// idleFor is an idle member that may take t (its role and capabilities), or nil.
func (e *engine) idleFor(t *Task) *member {
	for _, m := range e.members {
		if m.gone || m.taskState == "incomplete" || !m.a.Attempt().ShutdownAt.IsZero() || !m.shutdownAt.IsZero() {
			continue
		}
		if (t.RequiredRole == "" || t.RequiredRole == m.role) && hasAll(m.caps, t.RequiredCapabilities) {
			return m
		}
	}
	return nil
}

// act performs the scenario's orchmsg steps.
func (m *member) act(a *harness.Agent, st conform.Step) error {
	m.e.mu.Lock()
	defer m.e.mu.Unlock()
	switch st.Do {
	case "cancel":
		m.cancel(orDefault(st.Reason, "Cancelled by the conformance harness"))
	case "shutdown":
		g := st.Grace.D(m.e.h.ScaleFactor())
		if g <= 0 {
			g = m.e.h.Grace()
		}
		m.shutdown(orDefault(st.Reason, "Orchestrator stopping"), g)
	default:
		return harness.Errorf("scenario %s: step %q does not apply to orchmsg", m.e.h.Scenario().ID, st.Do)
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// cancel sends notify:task-cancelled for the member's task (once per attempt)
// and decides on the shutdown after the cancel grace.
func (m *member) cancel(reason string) {
	att := m.a.Attempt()
	if !att.CancelledAt.IsZero() || m.taskID == "" {
		return
	}
	att.CancelledAt = time.Now()
	if m.e.fault == FaultSilentCancel {
		m.decision("cancelled-silently", conform.KeyTaskID.Is(m.taskID), conform.KeyReason.Is(reason))
	} else {
		m.notify("notify:task-cancelled", map[string]any{"taskId": m.taskID, "reason": reason})
	}
	if m.taskState == "incomplete" {
		m.end("cancelled")
	}
	if m.e.team() {
		m.e.settle()
		return
	}
	m.scheduleShutdown(m.e.scaled(m.e.world.CancelGrace, DefaultCancelGrace))
}

// shutdown sends notify:shutdown (once) with the grace period g; when it is over
// the agent is stopped (SIGTERM, then SIGKILL after the harness's grace).
func (m *member) shutdown(reason string, g time.Duration) {
	att := m.a.Attempt()
	if !att.ShutdownAt.IsZero() {
		return
	}
	att.ShutdownAt, att.ShutdownFor = time.Now(), g
	m.notify("notify:shutdown", map[string]any{"gracePeriod": g.Milliseconds(), "reason": reason})
	harness.SetFact(m.e.h, conform.FactOrchMsgShutdownGraceMS, g.Milliseconds())
	if m.e.fault == FaultNoShutdownGrace {
		m.a.TerminateAt(time.Now())
		return
	}
	m.a.TerminateAt(time.Now().Add(g))
}

// monitor keeps the member's timers; it returns when it next wants to run.
func (m *member) monitor(a *harness.Agent, now time.Time) time.Time {
	e := m.e
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(m.inbox) > 0 {
		f := m.inbox[0]
		m.inbox = m.inbox[1:]
		f()
	}
	var next time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	keep := m.pending[:0]
	for _, p := range m.pending {
		switch {
		case !p.answerAt.IsZero() && !now.Before(p.answerAt):
			m.success(p.id, map[string]any{"answer": p.answer, "metadata": map[string]any{"answeredAt": stamp()}})
		case !now.Before(p.deadline) && e.fault != FaultNoRequestTimeout:
			m.fail(p.id, "TIMEOUT", "Request timed out", map[string]any{"timeoutMs": p.timeout.Milliseconds()})
		default:
			keep = append(keep, p)
			consider(p.answerAt)
			if e.fault != FaultNoRequestTimeout {
				consider(p.deadline)
			}
		}
	}
	m.pending = keep
	if alive := a.Attempt().Alive; m.taskState == "incomplete" && !alive.IsZero() && !m.timedOut {
		scale := e.h.ScaleFactor()
		if e.world.TaskTimeout > 0 {
			at := later(alive, m.assignedAt).Add(e.world.TaskTimeout.D(scale))
			if !now.Before(at) {
				m.timedOut = true
				m.decision("task-timeout", conform.KeyAfterMS.Is(e.world.TaskTimeout.D(scale).Milliseconds()))
				m.cancel("Task timed out")
			} else {
				consider(at)
			}
		}
		if e.world.IdleTimeout > 0 && !m.timedOut {
			from := later(alive, m.lastMsg)
			at := from.Add(e.world.IdleTimeout.D(scale))
			if !now.Before(at) {
				m.timedOut = true
				m.decision("idle-timeout", conform.KeySilentMS.Is(now.Sub(from).Milliseconds()))
				m.cancel("No progress for " + e.world.IdleTimeout.D(scale).String())
			} else {
				consider(at)
			}
		}
	}
	if !m.shutdownAt.IsZero() {
		if !now.Before(m.shutdownAt) {
			m.shutdownAt = time.Time{}
			m.shutdown("Orchestrator stopping", e.h.Grace())
		} else {
			consider(m.shutdownAt)
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

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// askUser forwards the question to the scripted user; the answer comes after its
// delay, or response:error TIMEOUT once the question's timeout has passed
// (lint/spec/orchmsg.RequestDeadline).
func (m *member) askUser(id string, p *spec.Payload) {
	e := m.e
	// question is a non-empty string, timeout a number not negative
	// (ORCH-SCHEMA-001, ORCH-PAYLOAD-004); 0 is the default timeout.
	ms, _ := p.Timeout.Get()
	timeout := spec.RequestDeadline("request:ask-user", ms)
	now := time.Now()
	q := &pending{id: id, typ: "request:ask-user", deadline: now.Add(timeout), timeout: timeout}
	switch {
	case e.fault == FaultCannedAnswer:
		q.answerAt, q.answer = now, "yes"
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
		m.success(id, map[string]any{"answer": q.answer, "metadata": map[string]any{"answeredAt": stamp()}})
		return
	}
	m.pending = append(m.pending, q)
}

// firstOption is the value of the question's first option, or "yes".
func firstOption(p *spec.Payload) string {
	if opts := p.Options.V; len(opts) > 0 {
		if v, ok := opts[0].V.Value.Get(); ok && strings.TrimSpace(v) != "" {
			return v
		}
	}
	return "yes"
}
