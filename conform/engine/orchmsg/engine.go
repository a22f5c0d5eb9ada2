// Package orchmsg is the reference orchestrator of the Agent↔Orchestrator stdio
// message protocol. Drive plays it against the agent under test through the
// harness (conform/harness): it assigns a task with notify:task-assigned, answers
// the five requests (query-agents, query-tasks, submit-task, get-task, ask-user)
// with response:success or response:error correlated to the request id, times
// requests out (30 s; ask-user its own timeout), enforces the 100 msg/s rate
// limit, keeps non-JSON output as logs, and sends notify:task-cancelled and
// notify:shutdown (with its grace period, then SIGTERM); with a team it drives
// several agents at once and assigns the tasks they submit. aopconform runs it
// against real processes; the tests run it against the in-process mock agent on
// virtual time, and the reference transcripts fixtures/reference/orchmsg come
// from those runs.
//
// What the engine refuses (INVALID_REQUEST, INVALID_MESSAGE_TYPE) is aoplint's
// decision, not a second copy of its rules: Refusal lints each request with
// lint/orchmsg's rules of one message and an error under its payload (or an
// unknown request type) refuses it; a warning never does (a priority outside
// 1..5, ORCH-PAYLOAD-002's warning, is served, ranked at the nearest of 1..5). The engine's short
// texts only word the finding. Exceptions lists the one deliberate difference:
// the envelope's findings (id, timestamp, agentId) do not refuse a request the
// engine can correlate. conform/difftest holds Answer to aoplint.
//
// The engine judges nothing: its decisions (answers, notifications, stops) are
// in the transcript, with "decision" events for those that send no message, and
// the checks (conform/checks) and aoplint judge the agent.
//
// docs/engine-orchmsg.md describes the behaviour with the spec sections it follows.
package orchmsg

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// Protocol is the protocol id.
const Protocol = "orchmsg"

// AgentID is the agent id the engine announces in ORCHMSG_AGENT_ID.
const AgentID = "agent-under-test"

// Defaults of the engine's policy (before --timeout-scale).
const (
	// DefaultShutdownDelay is the time between the end of the assigned task
	// (progress 1, or an unrecoverable event:error) and notify:shutdown.
	DefaultShutdownDelay = 300 * time.Millisecond
	// DefaultCancelGrace is the time between notify:task-cancelled and
	// notify:shutdown.
	DefaultCancelGrace = 2 * time.Second
)

// World is the orchestrator's side of a scenario: the member "orchestrator" of
// the scenario's task (removed from the notification, as "task" is). Every field
// is optional.
type World struct {
	Role         string      `json:"role,omitempty"`         // the agent's role (worker)
	Capabilities []string    `json:"capabilities,omitempty"` // the agent's capabilities
	Agents       []AgentInfo `json:"agents,omitempty"`       // the other agents (query-agents)
	Tasks        []Task      `json:"tasks,omitempty"`        // other tasks of the store
	User         User        `json:"user,omitempty"`         // who answers request:ask-user
	// TaskTimeout cancels the assigned task this long after the agent's timers
	// start (0: never).
	TaskTimeout conform.Duration `json:"task_timeout,omitempty"`
	// IdleTimeout cancels the assigned task when the agent sends no message for
	// this long while it runs ("progress events keep connection alive"; 0: never).
	IdleTimeout   conform.Duration `json:"idle_timeout,omitempty"`
	ShutdownDelay conform.Duration `json:"shutdown_delay,omitempty"` // DefaultShutdownDelay
	CancelGrace   conform.Duration `json:"cancel_grace,omitempty"`   // DefaultCancelGrace
	// KeepAlive: no shutdown when the task ends (the scenario's steps stop the agent).
	KeepAlive bool `json:"keep_alive,omitempty"`
	// Team are more agents, each a process of the same command as the agent under
	// test (with its own ORCHMSG_AGENT_ID), run at the same time. With a team the
	// engine schedules: a submitted task is queued and assigned to an idle member
	// of its requiredRole (and requiredCapabilities) once its dependencies are
	// completed; everyone is shut down when no task runs and none can.
	Team []Member `json:"team,omitempty"`
}

// Member is an agent of the team.
type Member struct {
	ID           string   `json:"id"`
	Role         string   `json:"role,omitempty"` // worker
	Capabilities []string `json:"capabilities,omitempty"`
	Task         *Task    `json:"task,omitempty"` // assigned at the start (none: idle)
}

// User is the scripted user behind request:ask-user: each question takes the next
// answer; with none left the user answers at once with the first option's value
// (or "yes"), unless Silent, when the question times out.
type User struct {
	Answers []UserAnswer `json:"answers,omitempty"`
	Silent  bool         `json:"silent,omitempty"`
}

// UserAnswer is the user's answer to one question, After it was asked; an answer
// later than the question's timeout is never given.
type UserAnswer struct {
	After  conform.Duration `json:"after,omitempty"`
	Answer string           `json:"answer"`
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
	Priority             *float64       `json:"priority,omitempty"`
	Payload              map[string]any `json:"payload,omitempty"`
	Result               map[string]any `json:"result,omitempty"`
	AssignedTo           string         `json:"assignedTo,omitempty"`
	SubmittedBy          string         `json:"submittedBy,omitempty"`
	// Extra keeps the scenario's other members (unknown fields the agent must
	// tolerate); get-task answers them too.
	Extra map[string]any `json:"-"`
	depth int
}

// UnmarshalJSON reads a task, keeping unknown members in Extra.
func (t *Task) UnmarshalJSON(b []byte) error {
	type plain Task
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*t = Task(p)
	for key, v := range all {
		if !taskFields[key] {
			if t.Extra == nil {
				t.Extra = map[string]any{}
			}
			t.Extra[key] = v
		}
	}
	return nil
}

// taskFields are the members Task reads.
var taskFields = map[string]bool{"id": true, "type": true, "name": true, "description": true, "status": true,
	"requiredRole": true, "requiredCapabilities": true, "dependencies": true, "priority": true, "payload": true,
	"result": true, "assignedTo": true, "submittedBy": true}

// view is the task as get-task and submit-task answer it.
func (t *Task) view() map[string]any {
	b, _ := json.Marshal(t)
	var m map[string]any
	json.Unmarshal(b, &m)
	for k, v := range t.Extra {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return m
}

// AgentInfo is an agent of the registry.
type AgentInfo struct {
	ID           string   `json:"id"`
	Role         string   `json:"role"`
	Status       string   `json:"status"`
	Capabilities []string `json:"capabilities"`
	CurrentTask  *string  `json:"currentTask"`
}

// defaultPeers are the other agents when the scenario names none.
var defaultPeers = []AgentInfo{{ID: "agent-2", Role: "reviewer", Status: "idle", Capabilities: []string{"review"}}}

// pending is a request the engine has not answered yet: an ask-user waiting for
// the user, or a request the scenario withholds.
type pending struct {
	id, typ  string
	answerAt time.Time // zero: no answer comes (it times out)
	answer   string
	deadline time.Time
	timeout  time.Duration
}

// engine is the orchestrator's state for one scenario: the task store, the
// scripted user and the agents it drives (members). One agent in the common
// case; a scenario's team adds more, each run by the harness in its own
// goroutine, so every entry point takes mu.
type engine struct {
	mu    sync.Mutex
	h     *harness.H
	fault string
	world World

	tasks     map[string]*Task
	queue     []string // submitted tasks not assigned yet, in order (teams only)
	submitted int
	answers   []UserAnswer
	withheld  map[string]bool
	rejected  map[string]bool
	members   []*member
}

// member is one agent the engine drives and its state.
type member struct {
	e    *engine
	id   string
	role string
	caps []string
	a    *harness.Agent
	seq  int // ids of the messages sent to it

	taskID     string // the current task ("" before the first)
	taskState  string // incomplete, completed, failed, cancelled ("" idle)
	assignedAt time.Time
	seenIDs    map[string]bool
	rate       spec.Rate[struct{}]
	limited    bool
	pending    []*pending
	lastMsg    time.Time
	// lastLine is when the agent's previous stdout line arrived (FaultParseChunks).
	lastLine time.Time
	// shutdownAt is the shutdown the engine decided on (zero: none yet).
	shutdownAt time.Time
	timedOut   bool     // the task timeout or the idle timeout fired
	inbox      []func() // work other members' goroutines left for this one
	gone       bool     // its Run has returned
	// sink takes what the engine sends in place of the agent (Answer).
	sink func([]byte)
}

// newEngine reads the scenario: the notification payload, the assigned task
// ("task") and the orchestrator's world ("orchestrator").
func newEngine(h *harness.H) (*engine, map[string]any, error) {
	sc := h.Scenario()
	var payload map[string]any
	if err := json.Unmarshal(h.Expand(sc.Task), &payload); err != nil {
		return nil, nil, harness.Errorf("scenario %s: task: %v", sc.ID, err)
	}
	e := &engine{h: h, fault: h.EngineFault(), tasks: map[string]*Task{}, withheld: map[string]bool{}, rejected: map[string]bool{}}
	if err := faults.Check("orchmsg", e.fault); err != nil {
		return nil, nil, harness.Error{Err: err}
	}
	if w, ok := payload["orchestrator"]; ok {
		b, _ := json.Marshal(w)
		if err := json.Unmarshal(b, &e.world); err != nil {
			return nil, nil, harness.Errorf("scenario %s: task.orchestrator: %v", sc.ID, err)
		}
		delete(payload, "orchestrator")
	}
	taskID, _ := payload["taskId"].(string)
	main := Task{ID: taskID, Name: "Assigned task"}
	if t, ok := payload["task"]; ok {
		b, _ := json.Marshal(t)
		if err := json.Unmarshal(b, &main); err != nil {
			return nil, nil, harness.Errorf("scenario %s: task.task: %v", sc.ID, err)
		}
		delete(payload, "task")
	}
	if main.ID == "" {
		main.ID = taskID
	}
	for _, t := range e.world.Tasks {
		t := t
		e.tasks[t.ID] = &t
	}
	if e.world.Role == "" {
		e.world.Role = "worker"
	}
	if e.world.Agents == nil {
		e.world.Agents = defaultPeers
	}
	e.answers = append([]UserAnswer(nil), e.world.User.Answers...)
	for _, t := range sc.Withhold {
		e.withheld[t] = true
	}
	for _, t := range sc.Reject {
		e.rejected[t] = true
	}
	lead := e.member(AgentID, e.world.Role, e.world.Capabilities)
	lead.take(&main)
	for _, tm := range e.world.Team {
		if tm.ID == "" || tm.ID == AgentID {
			return nil, nil, harness.Errorf("scenario %s: task.orchestrator.team: every member needs an id other than %s", sc.ID, AgentID)
		}
		m := e.member(tm.ID, orDefault(tm.Role, "worker"), tm.Capabilities)
		if tm.Task != nil {
			t := *tm.Task
			m.take(&t)
		}
	}
	return e, payload, nil
}

// member adds an agent.
func (e *engine) member(id, role string, caps []string) *member {
	m := &member{e: e, id: id, role: role, caps: caps, seenIDs: map[string]bool{}}
	e.members = append(e.members, m)
	return m
}

// take makes t the member's current task (in the store, running).
func (m *member) take(t *Task) {
	t.AssignedTo, t.Status = m.id, "running"
	if t.Dependencies == nil {
		t.Dependencies = []string{}
	}
	m.e.tasks[t.ID] = t
	m.taskID, m.taskState, m.assignedAt = t.ID, "incomplete", time.Now()
}

// team reports whether the engine drives more than one agent.
func (e *engine) team() bool { return len(e.members) > 1 }

// decision records a decision of the engine that sends no message (a rate limit,
// a timeout, a stop) as a "decision" event.
func (m *member) decision(name string, detail ...conform.Field) {
	d := conform.Details(conform.KeyDecision.Is(name))
	d.Add(detail...)
	if m.e.team() {
		d.Add(conform.KeyAgent.Is(m.id))
	}
	n := 0
	if m.a != nil {
		n = m.a.N()
	}
	m.e.h.Event(n, conform.EventDecision, d)
}

// newID is a message id unique within the run, the same in every run.
func (m *member) newID(prefix string) string {
	m.seq++
	if m.e.fault == FaultReuseIDs {
		return spec.MessageID("msg", "orchestrator/"+m.e.h.Scenario().ID)
	}
	return spec.MessageID(prefix, fmt.Sprintf("orchestrator/%s/%s/%d", m.e.h.Scenario().ID, m.id, m.seq))
}

func stamp() string { return spec.FormatTime(time.Now()) }

// send writes one message to the agent's stdin (the harness records it).
func (m *member) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	if m.sink != nil {
		m.sink(b)
		return
	}
	m.a.Send(b)
}

type notifyMsg struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	Timestamp string         `json:"timestamp"`
	AgentID   string         `json:"agentId"`
	Payload   map[string]any `json:"payload"`
}

type responseMsg struct {
	Type          string     `json:"type"`
	ID            string     `json:"id"`
	CorrelationID any        `json:"correlationId"`
	Timestamp     string     `json:"timestamp"`
	Payload       any        `json:"payload,omitempty"`
	Error         *errorBody `json:"error,omitempty"`
}

type errorBody struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (m *member) notification(typ string, payload map[string]any) notifyMsg {
	n := notifyMsg{Type: typ, ID: m.newID("ntf"), Timestamp: stamp(), AgentID: m.id, Payload: payload}
	if m.e.fault == FaultNoTimestamp {
		n.Timestamp = ""
	}
	return n
}

func (m *member) notify(typ string, payload map[string]any) {
	m.send(m.notification(typ, payload))
}

// correlation is the correlationId of the answer to request id.
func (m *member) correlation(id any) any {
	if m.e.fault == FaultWrongCorrelationID {
		if s, ok := id.(string); ok {
			return s + "-x"
		}
	}
	return id
}

func (m *member) success(reqID any, payload any) {
	m.send(responseMsg{Type: "response:success", ID: m.newID("res"), CorrelationID: m.correlation(reqID), Timestamp: stamp(), Payload: payload})
}

func (m *member) fail(reqID any, code, msg string, details map[string]any) {
	m.send(responseMsg{Type: "response:error", ID: m.newID("res"), CorrelationID: m.correlation(reqID), Timestamp: stamp(), Error: &errorBody{Code: code, Message: msg, Details: details}})
}

// scaled stretches a scenario duration by --timeout-scale.
func (e *engine) scaled(d conform.Duration, def time.Duration) time.Duration {
	if d <= 0 {
		return e.h.Scale(def)
	}
	return d.D(e.h.ScaleFactor())
}
