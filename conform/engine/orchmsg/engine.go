// Package orchmsg is the reference orchestrator of the Agent↔Orchestrator stdio
// message protocol: it assigns a task with notify:task-assigned, answers the five
// requests (query-agents, query-tasks, submit-task, get-task, ask-user) with
// response:success or response:error correlated to the request id, enforces the
// 30 s request timeout and the 100 msg/s rate limit, keeps non-JSON output as logs,
// and sends notify:task-cancelled and notify:shutdown (with its grace period, then
// kill). All time comes from a clock.Clock.
//
// docs/engine-orchmsg.md describes the behaviour with the spec sections it follows.
package orchmsg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
)

// Protocol is the protocol id.
const Protocol = "orchmsg"

// Defaults of the spec and of the bindings.
const (
	DefaultRequestTimeout = 30 * time.Second // "Requests timeout after 30 seconds (configurable)"
	DefaultRateLimit      = 100              // "100 msg/sec limit"
	DefaultGracePeriod    = 2 * time.Second  // bindings: 2 s × --timeout-scale
	DefaultMaxMessage     = 1 << 20
	DefaultMaxDepth       = 3
	DefaultDeadline       = 10 * time.Minute
	DefaultCancelGrace    = 2 * time.Second
	DefaultShutdownDelay  = time.Second
)

// Config is one engine run.
type Config struct {
	Launcher agentio.Launcher
	Clock    clock.Clock // clock.Real{} when nil
	Scratch  string      // the agent's working directory
	Recorder *Recorder
	Scenario string
	Args     []string
	Env      []string

	AgentID      string // ORCHMSG_AGENT_ID (default "agent-1")
	Role         string // the agent's role (default "worker")
	Capabilities []string
	Task         Task        // assigned first (ID default "task-1")
	Peers        []AgentInfo // other agents, for request:query-agents
	Tasks        []Task      // other tasks in the store
	// UserAnswers are the scripted answers to request:ask-user, in order; an
	// answer later than the question's timeout (or none left) times out.
	UserAnswers []UserAnswer
	// Notifications are scripted notifications, relative to the assignment.
	Notifications []Notification

	RequestTimeout time.Duration // DefaultRequestTimeout when 0
	RateLimit      int           // messages per second (DefaultRateLimit when 0)
	GracePeriod    time.Duration // payload.gracePeriod of notify:shutdown
	TaskTimeout    time.Duration // cancel the task after this long (0: never)
	IdleTimeout    time.Duration // cancel when the agent is silent this long during the task (0: never)
	CancelGrace    time.Duration // time between a cancellation and the shutdown
	ShutdownDelay  time.Duration // time between the task's end and the shutdown
	KeepAlive      bool          // do not shut the agent down when the task ends
	Deadline       time.Duration // shut down whatever happens (DefaultDeadline when 0)
	MaxMessage     int           // bytes of one agent message (DefaultMaxMessage when 0)
	MaxDepth       int           // nesting of submitted tasks (DefaultMaxDepth when 0)
}

// Task is a task of the store.
type Task struct {
	ID                   string         `json:"id"`
	Type                 string         `json:"type,omitempty"`
	Name                 string         `json:"name"`
	Description          string         `json:"description,omitempty"`
	Status               string         `json:"status"`
	RequiredRole         string         `json:"requiredRole,omitempty"`
	RequiredCapabilities []string       `json:"requiredCapabilities,omitempty"`
	Dependencies         []string       `json:"dependencies"`
	Priority             int            `json:"priority,omitempty"`
	Payload              map[string]any `json:"payload,omitempty"`
	Result               map[string]any `json:"result,omitempty"`
	AssignedTo           string         `json:"assignedTo,omitempty"`
	SubmittedBy          string         `json:"submittedBy,omitempty"`
	depth                int
}

// AgentInfo is an agent of the registry.
type AgentInfo struct {
	ID           string   `json:"id"`
	Role         string   `json:"role"`
	Status       string   `json:"status"`
	Capabilities []string `json:"capabilities"`
	CurrentTask  *string  `json:"currentTask"`
}

// UserAnswer is the user's scripted answer to the next ask-user.
type UserAnswer struct {
	After  time.Duration
	Answer string
}

// Notification is a scripted notification.
type Notification struct {
	At     time.Duration
	Type   string // "notify:task-cancelled", "notify:shutdown", "notify:task-assigned"
	TaskID string
	Reason string
}

// Result is what the engine decided.
type Result struct {
	AgentID   string
	TaskID    string
	TaskState string // completed, cancelled, failed, incomplete
	Progress  float64
	Requests  []Request
	Sent      []string // notification types sent, in order
	// Codes are the engine's decisions: TIMEOUT (a request timed out),
	// RATE_LIMITED, TASK_TIMEOUT, IDLE_TIMEOUT, CRASHED, KILLED.
	Codes      []string
	Violations []Violation
	Logs       []string // agent output that was no message, kept as logs
	Dropped    int      // messages dropped by the rate limit or the size limit
	Submitted  []Task
	Exit       agentio.Exit
}

// Request is one request and how the engine answered it.
type Request struct {
	ID      string
	Type    string
	Outcome string // "success" or "error"
	Code    string // the error code
}

// Violation is a rule the agent broke.
type Violation struct {
	Rule   string
	Count  int
	Detail string
}

// HasCode reports whether the engine decided code.
func (r *Result) HasCode(code string) bool {
	for _, c := range r.Codes {
		if c == code {
			return true
		}
	}
	return false
}

// HasViolation reports whether the agent broke rule.
func (r *Result) HasViolation(rule string) bool {
	for _, v := range r.Violations {
		if v.Rule == rule {
			return true
		}
	}
	return false
}

// ErrorCodes lists the codes of the error responses, in order.
func (r *Result) ErrorCodes() []string {
	var out []string
	for _, q := range r.Requests {
		if q.Outcome == "error" {
			out = append(out, q.Code)
		}
	}
	return out
}

// pendingAsk is an ask-user waiting for the user.
type pendingAsk struct {
	id       string
	answerAt time.Time // zero: the user does not answer in time
	answer   string
	deadline time.Time
	timeout  time.Duration
}

type engine struct {
	cfg   Config
	clk   clock.Clock
	rec   *Recorder
	res   *Result
	conn  agentio.Conn
	start time.Time
	seq   int

	tasks     map[string]*Task
	seenIDs   map[string]bool
	window    []time.Time
	limited   bool
	asks      []*pendingAsk
	answers   []UserAnswer
	notes     []Notification
	lastMsg   time.Time
	taskEnd   time.Time // when the task completed, failed or was cancelled
	cancelled map[string]time.Time

	shutdownAt   time.Time // scheduled shutdown
	shutdownSent bool
	killAt       time.Time
	killed       bool
	exited       bool
	taskTimeout  time.Time
	deadline     time.Time
	deadlineHit  bool
}

// Run plays the orchestrator for one agent and one assigned task.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	e := &engine{cfg: cfg, clk: cfg.Clock, rec: cfg.Recorder, res: &Result{}, tasks: map[string]*Task{},
		seenIDs: map[string]bool{}, cancelled: map[string]time.Time{}}
	e.defaults()
	e.start = e.clk.Now()
	e.res.AgentID, e.res.TaskID = e.cfg.AgentID, e.cfg.Task.ID
	for _, t := range e.cfg.Tasks {
		t := t
		e.tasks[t.ID] = &t
	}
	main := e.cfg.Task
	main.AssignedTo, main.Status = e.cfg.AgentID, "running"
	if main.Dependencies == nil {
		main.Dependencies = []string{}
	}
	e.tasks[main.ID] = &main
	e.answers = append([]UserAnswer(nil), e.cfg.UserAnswers...)
	e.notes = append([]Notification(nil), e.cfg.Notifications...)
	sort.SliceStable(e.notes, func(i, j int) bool { return e.notes[i].At < e.notes[j].At })
	e.res.TaskState = "incomplete"
	e.run(ctx)
	return e.res, e.rec.Err()
}

func (e *engine) defaults() {
	c := &e.cfg
	if e.clk == nil {
		e.clk = clock.Real{}
	}
	if c.AgentID == "" {
		c.AgentID = "agent-1"
	}
	if c.Role == "" {
		c.Role = "worker"
	}
	if c.Task.ID == "" {
		c.Task.ID = "task-1"
	}
	if c.Task.Name == "" {
		c.Task.Name = "Implement feature"
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.RateLimit <= 0 {
		c.RateLimit = DefaultRateLimit
	}
	if c.GracePeriod <= 0 {
		c.GracePeriod = DefaultGracePeriod
	}
	if c.Deadline <= 0 {
		c.Deadline = DefaultDeadline
	}
	if c.MaxMessage <= 0 {
		c.MaxMessage = DefaultMaxMessage
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.CancelGrace <= 0 {
		c.CancelGrace = DefaultCancelGrace
	}
	if c.ShutdownDelay <= 0 {
		c.ShutdownDelay = DefaultShutdownDelay
	}
}

func (e *engine) code(c string) { e.res.Codes = append(e.res.Codes, c) }

func (e *engine) violation(rule, format string, args ...any) {
	for i := range e.res.Violations {
		if e.res.Violations[i].Rule == rule {
			e.res.Violations[i].Count++
			return
		}
	}
	e.res.Violations = append(e.res.Violations, Violation{Rule: rule, Count: 1, Detail: fmt.Sprintf(format, args...)})
}

// newID is a deterministic UUID-shaped id with a prefix.
func (e *engine) newID(prefix string) string {
	e.seq++
	h := sha256.Sum256([]byte(fmt.Sprintf("orchestrator/%s/%d", e.cfg.AgentID, e.seq)))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return prefix + "-" + x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func (e *engine) stamp() string { return e.clk.Now().UTC().Format(TimeLayout) }

// send writes one message to the agent's stdin (and the transcript).
func (e *engine) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	e.rec.Line(e.clk.Now(), "orchestrator", "stdin", b)
	if e.exited || e.killed {
		return
	}
	if err := e.conn.Send(b); err != nil {
		e.violation("orchmsg/bind/read-stdin", "the agent does not read its stdin: %v", err)
	}
}

type notifyMsg struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	Timestamp string         `json:"timestamp"`
	Payload   map[string]any `json:"payload"`
}

type responseMsg struct {
	Type          string     `json:"type"`
	ID            string     `json:"id"`
	CorrelationID string     `json:"correlationId"`
	Timestamp     string     `json:"timestamp"`
	Payload       any        `json:"payload,omitempty"`
	Error         *errorBody `json:"error,omitempty"`
}

type errorBody struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *engine) notify(typ string, payload map[string]any) {
	e.res.Sent = append(e.res.Sent, typ)
	e.send(notifyMsg{Type: typ, ID: e.newID("ntf"), Timestamp: e.stamp(), Payload: payload})
}

func (e *engine) success(reqID, typ string, payload any) {
	e.res.Requests = append(e.res.Requests, Request{ID: reqID, Type: typ, Outcome: "success"})
	e.send(responseMsg{Type: "response:success", ID: e.newID("res"), CorrelationID: reqID, Timestamp: e.stamp(), Payload: payload})
}

func (e *engine) fail(reqID, typ, code, msg string, details map[string]any) {
	e.res.Requests = append(e.res.Requests, Request{ID: reqID, Type: typ, Outcome: "error", Code: code})
	e.send(responseMsg{Type: "response:error", ID: e.newID("res"), CorrelationID: reqID, Timestamp: e.stamp(), Error: &errorBody{Code: code, Message: msg, Details: details}})
}

func (e *engine) run(ctx context.Context) {
	env := []string{"AOP_PROTOCOL=" + Protocol, "AOPKIT_SCRATCH=" + e.cfg.Scratch, "AOPKIT_SCENARIO=" + e.cfg.Scenario, "ORCHMSG_AGENT_ID=" + e.cfg.AgentID}
	conn, err := e.cfg.Launcher.Launch(ctx, agentio.Spec{Dir: e.cfg.Scratch, Env: append(env, e.cfg.Env...), Args: e.cfg.Args})
	if err != nil {
		e.code("CRASHED")
		e.res.Exit = agentio.Exit{Code: -1, Err: err}
		e.rec.Event(e.clk.Now(), "agent-exit", map[string]any{"code": -1, "error": err.Error()})
		return
	}
	e.conn = conn
	now := e.clk.Now()
	e.rec.Event(now, "agent-start", map[string]any{"agentId": e.cfg.AgentID, "taskId": e.cfg.Task.ID})
	e.lastMsg = now
	e.deadline = now.Add(e.cfg.Deadline)
	if e.cfg.TaskTimeout > 0 {
		e.taskTimeout = now.Add(e.cfg.TaskTimeout)
	}
	e.notify("notify:task-assigned", map[string]any{"taskId": e.cfg.Task.ID, "message": "Task assigned. Use request:get-task to view details."})
	e.loop(ctx)
	ex := conn.Exit()
	e.res.Exit = ex
	e.rec.Event(e.clk.Now(), "agent-exit", exitDetail(ex))
	if !e.killed && (ex.Code != 0 || ex.Signal != "") {
		e.code("CRASHED")
		e.violation("orchmsg/bind/exit-zero", "the agent ended with exit %d %s", ex.Code, ex.Signal)
	}
	if !e.shutdownSent && !e.killed && ex.Code == 0 && ex.Signal == "" {
		e.violation("orchmsg/bind/early-exit", "the agent exited before notify:shutdown")
	}
	if t := e.tasks[e.cfg.Task.ID]; t != nil && e.res.TaskState == "incomplete" && !e.killed {
		if e.deadlineHit {
			e.violation("orchmsg/completion/reported", "no progress 1.0 on %s within the %s deadline", e.cfg.Task.ID, e.cfg.Deadline)
		}
	}
	e.rec.Event(e.clk.Now(), "scenario-end", map[string]any{"taskState": e.res.TaskState, "codes": nonNil(e.res.Codes)})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
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

// loop is the event loop: the agent's lines, its exit and the engine's timers.
func (e *engine) loop(ctx context.Context) {
	lines, done := e.conn.Lines(), e.conn.Done()
	ctxDone := ctx.Done()
	var drainBy time.Time
	for lines != nil || done != nil {
		now := e.clk.Now()
		next := e.nextTimer()
		if !drainBy.IsZero() && (next.IsZero() || drainBy.Before(next)) {
			next = drainBy
		}
		var timer <-chan time.Time
		if !next.IsZero() {
			timer = e.clk.After(next.Sub(now))
		}
		select {
		case <-ctxDone:
			ctxDone = nil
			e.kill("cancelled")
		case l, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			e.handleLine(l)
		case <-done:
			done = nil
			e.exited = true
			if lines != nil {
				drainBy = e.clk.Now().Add(e.cfg.GracePeriod)
			}
		case <-timer:
			now = e.clk.Now()
			if !drainBy.IsZero() && !now.Before(drainBy) {
				lines = nil
				continue
			}
			e.timers(now)
		}
	}
}

func earliest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if !t.IsZero() && (out.IsZero() || t.Before(out)) {
			out = t
		}
	}
	return out
}

func (e *engine) nextTimer() time.Time {
	if e.exited {
		return time.Time{}
	}
	ts := []time.Time{e.shutdownAt, e.killAt, e.deadline}
	if e.res.TaskState == "incomplete" {
		ts = append(ts, e.taskTimeout)
		if e.cfg.IdleTimeout > 0 {
			ts = append(ts, e.lastMsg.Add(e.cfg.IdleTimeout))
		}
	}
	for _, a := range e.asks {
		ts = append(ts, a.answerAt, a.deadline)
	}
	if len(e.notes) > 0 {
		ts = append(ts, e.start.Add(e.notes[0].At))
	}
	return earliest(ts...)
}

// timers acts on everything due at now.
func (e *engine) timers(now time.Time) {
	for len(e.notes) > 0 && !now.Before(e.start.Add(e.notes[0].At)) {
		n := e.notes[0]
		e.notes = e.notes[1:]
		switch n.Type {
		case "notify:task-cancelled":
			e.cancel(orDefault(n.TaskID, e.cfg.Task.ID), orDefault(n.Reason, "Cancelled by the user"))
		case "notify:shutdown":
			e.shutdown(orDefault(n.Reason, "Orchestrator stopping"))
		case "notify:task-assigned":
			e.notify("notify:task-assigned", map[string]any{"taskId": orDefault(n.TaskID, e.cfg.Task.ID), "message": "Task assigned."})
		}
	}
	var keep []*pendingAsk
	for _, a := range e.asks {
		switch {
		case !a.answerAt.IsZero() && !now.Before(a.answerAt):
			e.success(a.id, "request:ask-user", map[string]any{"answer": a.answer, "metadata": map[string]any{"answeredAt": e.stamp()}})
		case !now.Before(a.deadline):
			e.code("TIMEOUT")
			e.fail(a.id, "request:ask-user", "TIMEOUT", "The user did not answer in time", map[string]any{"timeoutMs": a.timeout.Milliseconds()})
		default:
			keep = append(keep, a)
		}
	}
	e.asks = keep
	if e.res.TaskState == "incomplete" {
		if !e.taskTimeout.IsZero() && !now.Before(e.taskTimeout) {
			e.code("TASK_TIMEOUT")
			e.cancel(e.cfg.Task.ID, "Task timed out")
		} else if e.cfg.IdleTimeout > 0 && !now.Before(e.lastMsg.Add(e.cfg.IdleTimeout)) {
			e.code("IDLE_TIMEOUT")
			e.violation("orchmsg/timeouts/keepalive", "no message for %s during the task", e.cfg.IdleTimeout)
			e.cancel(e.cfg.Task.ID, "No progress for "+e.cfg.IdleTimeout.String())
		}
	}
	if !e.deadline.IsZero() && !now.Before(e.deadline) {
		e.deadline = time.Time{}
		e.deadlineHit = true
		e.shutdown("Scenario deadline")
	}
	if !e.shutdownAt.IsZero() && !now.Before(e.shutdownAt) {
		e.shutdownAt = time.Time{}
		e.shutdown("Orchestrator stopping")
	}
	if !e.killAt.IsZero() && !now.Before(e.killAt) {
		e.killAt = time.Time{}
		e.violation("orchmsg/shutdown/exit-within-grace", "the agent did not exit within the %s grace period", e.cfg.GracePeriod)
		e.kill("grace period over")
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// cancel sends notify:task-cancelled and schedules the shutdown.
func (e *engine) cancel(taskID, reason string) {
	if _, done := e.cancelled[taskID]; done {
		return
	}
	now := e.clk.Now()
	e.cancelled[taskID] = now
	e.notify("notify:task-cancelled", map[string]any{"taskId": taskID, "reason": reason})
	if t := e.tasks[taskID]; t != nil {
		t.Status = "cancelled"
	}
	if taskID == e.cfg.Task.ID && e.res.TaskState == "incomplete" {
		e.res.TaskState = "cancelled"
		e.taskEnd = now
		if !e.cfg.KeepAlive && e.shutdownAt.IsZero() {
			e.shutdownAt = now.Add(e.cfg.CancelGrace)
		}
	}
}

// shutdown sends notify:shutdown with the grace period and arms the kill.
func (e *engine) shutdown(reason string) {
	if e.shutdownSent || e.exited {
		return
	}
	e.shutdownSent = true
	e.notify("notify:shutdown", map[string]any{"gracePeriod": e.cfg.GracePeriod.Milliseconds(), "reason": reason})
	e.killAt = e.clk.Now().Add(e.cfg.GracePeriod)
}

func (e *engine) kill(reason string) {
	if e.killed || e.exited {
		return
	}
	e.killed = true
	e.code("KILLED")
	e.conn.Kill()
	e.rec.Event(e.clk.Now(), "kill", map[string]any{"signal": "SIGKILL", "reason": reason})
}

// taskDone marks the assigned task finished and schedules the shutdown.
func (e *engine) taskDone(state string) {
	if e.res.TaskState != "incomplete" {
		return
	}
	e.res.TaskState = state
	e.taskEnd = e.clk.Now()
	if t := e.tasks[e.cfg.Task.ID]; t != nil {
		t.Status = state
		t.Result = map[string]any{"success": state == "completed"}
	}
	if !e.cfg.KeepAlive && e.shutdownAt.IsZero() {
		e.shutdownAt = e.taskEnd.Add(e.cfg.ShutdownDelay)
	}
}

// handleLine routes one line of the agent (Parsing Strategy): JSON with a type goes
// to the message handler, anything else is kept as a log line.
func (e *engine) handleLine(l agentio.Line) {
	e.rec.Line(l.At, "agent", l.Stream, l.Data)
	if l.Stream != "stdout" {
		return
	}
	if l.Truncated || len(l.Data) > e.cfg.MaxMessage {
		e.res.Dropped++
		e.violation("orchmsg/limit/message-size", "a stdout line of over %d bytes was dropped", e.cfg.MaxMessage)
		return
	}
	data := []byte(strings.TrimSpace(string(l.Data)))
	if len(data) == 0 {
		return
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		if data[0] == '{' {
			e.violation("orchmsg/format/json", "a line that starts a JSON object does not parse (%v); kept as a log", err)
		}
		e.res.Logs = append(e.res.Logs, string(data))
		return
	}
	m, _ := v.(map[string]any)
	typ, ok := m["type"].(string)
	if m == nil || !ok {
		e.violation("GEN-DETECT-001", "JSON without a type field is kept as a log: %.60s", data)
		e.res.Logs = append(e.res.Logs, string(data))
		return
	}
	now := l.At
	e.lastMsg = now
	if !e.allow(now) {
		e.res.Dropped++
		if strings.HasPrefix(typ, "request:") {
			if id, _ := m["id"].(string); id != "" {
				e.fail(id, typ, "INTERNAL_ERROR", fmt.Sprintf("Rate limit exceeded: at most %d messages per second", e.cfg.RateLimit), map[string]any{"limit": e.cfg.RateLimit})
			}
		}
		return
	}
	id, idOK := m["id"].(string)
	if !idOK || id == "" {
		e.violation("ORCH-BASE-001", "a %s message without an id", typ)
	} else if e.seenIDs[id] {
		if strings.HasPrefix(typ, "request:") {
			e.violation("ORCH-SEQ-003", "request id %q was used before: responses could not be correlated", id)
		} else {
			e.violation("ORCH-SEQ-003", "message id %q was used before", id)
		}
	}
	dupID := idOK && id != "" && e.seenIDs[id]
	if idOK && id != "" {
		e.seenIDs[id] = true
	}
	if ts, _ := m["timestamp"].(string); !validTimestamp(ts) {
		e.violation("ORCH-BASE-002", "timestamp %q is not ISO 8601 such as 2026-02-04T14:30:00Z", ts)
	}
	foreign := false
	if a, ok := m["agentId"].(string); ok && a != e.cfg.AgentID {
		e.violation("orchmsg/format/base-fields", "agentId %q is not the agent's own id %q", a, e.cfg.AgentID)
		foreign = true
	}
	switch {
	case strings.HasPrefix(typ, "request:"):
		if !idOK || id == "" {
			return // nothing to correlate an answer with
		}
		if dupID {
			// Each request gets exactly one response: a reused id is not answered
			// again (the agent's own request timeout ends its wait).
			e.res.Dropped++
			return
		}
		if foreign {
			e.fail(id, typ, "UNAUTHORIZED", "agentId does not match the agent", map[string]any{"agentId": m["agentId"]})
			return
		}
		e.handleRequest(id, typ, m)
	case strings.HasPrefix(typ, "event:"):
		e.handleEvent(typ, m, now)
	case strings.HasPrefix(typ, "response:"), strings.HasPrefix(typ, "notify:"):
		e.violation("ORCH-SEQ-006", "%s goes from the orchestrator to the agent, never back; ignored", typ)
	default:
		e.violation("ORCH-TYPE-001", "type %q is no message type of the protocol; ignored", typ)
	}
}

// allow applies the rate limit over a sliding one-second window.
func (e *engine) allow(now time.Time) bool {
	cut := now.Add(-time.Second)
	i := 0
	for i < len(e.window) && !e.window[i].After(cut) {
		i++
	}
	e.window = append(e.window[i:], now)
	if len(e.window) <= e.cfg.RateLimit {
		return true
	}
	if !e.limited {
		e.limited = true
		e.code("RATE_LIMITED")
	}
	e.violation("ORCH-SEQ-005", "more than %d messages within one second", e.cfg.RateLimit)
	return false
}

func validTimestamp(s string) bool {
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return true
	}
	return false
}

func (e *engine) handleEvent(typ string, m map[string]any, now time.Time) {
	p, _ := m["payload"].(map[string]any)
	switch typ {
	case "event:progress":
		taskID, ok1 := p["taskId"].(string)
		prog, ok2 := p["progress"].(float64)
		if !ok1 || !ok2 {
			e.violation("ORCH-SCHEMA-001", "event:progress needs payload.taskId (string) and payload.progress (number)")
			return
		}
		if prog < 0 || prog > 1 {
			e.violation("ORCH-PAYLOAD-001", "event:progress progress %v must be between 0 and 1", prog)
		}
		if at, ok := e.cancelled[taskID]; ok && now.Sub(at) > time.Second {
			e.violation("orchmsg/cancel/stops-task", "progress on %s %s after notify:task-cancelled", taskID, now.Sub(at))
			return
		}
		if taskID == e.cfg.Task.ID {
			e.res.Progress = prog
			if prog >= 1 {
				e.taskDone("completed")
			}
		}
	case "event:log":
		if msg, _ := p["message"].(string); msg == "" {
			e.violation("ORCH-SCHEMA-001", "event:log needs payload.message")
		}
		if lv, _ := p["level"].(string); lv != "" && lv != "info" && lv != "warn" && lv != "error" {
			e.violation("ORCH-PAYLOAD-003", "event:log level %q must be info, warn or error", lv)
		}
	case "event:error":
		if _, ok := p["error"].(string); !ok {
			e.violation("ORCH-SCHEMA-001", "event:error needs payload.error")
		}
		if rec, ok := p["recoverable"].(bool); ok && !rec {
			if id, _ := p["taskId"].(string); id == e.cfg.Task.ID {
				e.taskDone("failed")
			}
		}
	case "event:question":
		if _, ok := p["question"].(string); !ok {
			e.violation("ORCH-SCHEMA-001", "event:question needs payload.question")
		}
	default:
		e.violation("ORCH-TYPE-001", "event type %q is not event:progress, event:log, event:error or event:question; ignored", typ)
	}
}
