// Package orchmsg is the orchmsg mock agent: a worker speaking the Agent↔Orchestrator
// stdio protocol. It waits for notify:task-assigned, reads the task with
// request:get-task, looks at its peers (query-agents, query-tasks), works while
// sending event:progress, asks the user or submits a follow-up task when the task
// says so, reports progress 1.0, and then idles until notify:shutdown (or EOF on
// stdin), answering notify:task-cancelled by stopping the work.
//
// The task's payload scripts the work: {"mockagent": {"work_seconds": 10,
// "ask_user": true, "submit": true}}; on the orchestrator side the same script
// comes out of band, in the file $AOPKIT_MOCKAGENT_SCRIPT names
// (mockagent.Script), never inside a message.
package orchmsg

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
	"github.com/aopkit/aopkit/mockagent"
)

// Protocol is the protocol id.
const Protocol = "orchmsg"

// Agent is the protocol's reference agent (conform/protocols lists it).
var Agent = mockagent.Register(&mockagent.Agent{Protocol: Protocol, Faults: &faults, Run: Run})

// Timing of the agent.
const (
	defaultWork   = 10 * time.Second
	progressEvery = 5 * time.Second
	// answerWait is how long the agent waits for a response: longer than the
	// orchestrator's 30 s request timeout, so the orchestrator's TIMEOUT comes first.
	answerWait = spec.RequestTimeout + 5*time.Second
	maxLine    = 4 << 20
)

// script is task.payload.mockagent.
type script struct {
	WorkSeconds float64 `json:"work_seconds"`
	AskUser     bool    `json:"ask_user"`
	Submit      bool    `json:"submit"`
	// Probes are requests the agent sends, one at a time, each waiting for its
	// answer, right after it has read its task: the orchestrator-side
	// scenarios' cues for the answers they judge (a get-task for a task that
	// does not exist, a query with filters, a request of an unknown type, a
	// question nobody answers).
	Probes []probe `json:"probes,omitempty"`
	// GetCancelled: once its task is cancelled the agent asks request:get-task
	// for it (does the orchestrator still route it as a live task?).
	GetCancelled bool `json:"get_cancelled_task,omitempty"`
	// RequestGapMs paces the agent: it writes a request no sooner than this
	// long after its previous line, so that a host that parses its stdout per
	// chunk, not per line (forge), still reads each request alone.
	RequestGapMs float64 `json:"request_gap_ms,omitempty"`
	// OneWrite: the agent writes its "task assigned" log line and its first
	// request:get-task in one write, two lines in one pipe chunk (as any agent's
	// lines may arrive together): a host that parses each chunk as one JSON
	// document, not each line, loses the request.
	OneWrite bool `json:"one_write,omitempty"`
}

// probe is one request of script.Probes: its type and payload as sent (the
// agent adds id, timestamp and agentId).
type probe struct {
	Type    string         `json:"type"`
	Payload map[string]any `json:"payload"`
}

type status int

const (
	got status = iota
	timedOut
	stopped // shutdown, EOF or context: the agent exits
)

type agent struct {
	ctx       context.Context
	env       mockagent.Env
	clk       clock.Clock
	fault     string
	out       *bufio.Writer
	in        <-chan *spec.Message
	agentID   string
	seq       int
	taskID    string
	cancelled map[string]bool
	lastReq   string
	// defyAt is when the ignore-cancel fault reports progress on its cancelled
	// task (zero: no cancellation to defy).
	defyAt time.Time
	defied bool
	// gap is script.RequestGapMs; lastWrite when the agent last wrote a line.
	gap       time.Duration
	lastWrite time.Time
	// hold keeps the next line in the buffer, unflushed: the line after it
	// goes out in the same write (script.OneWrite).
	hold bool
	// awaiting: the agent waits for the answer to a request (block-on-request
	// heeds no notify:shutdown meanwhile).
	awaiting bool
}

// Run plays the orchmsg agent. It returns the process exit code.
func Run(ctx context.Context, env mockagent.Env, fault string) int {
	code := run(ctx, env, fault)
	if fault == FaultExitNonzero && code == 0 {
		return 1
	}
	return code
}

func run(ctx context.Context, env mockagent.Env, fault string) int {
	clk := env.TimeSource()
	in := make(chan *spec.Message, 16)
	go readStdin(env.Stdin, in)
	a := &agent{ctx: ctx, env: env, clk: clk, fault: fault, out: bufio.NewWriter(env.Stdout), in: in, cancelled: map[string]bool{}}
	if env.Getenv != nil {
		a.agentID = env.Getenv("ORCHMSG_AGENT_ID")
	}
	if a.agentID == "" {
		a.agentID = "agent-1"
	}
	for {
		// The upstream prototype's dialect ({"type":"task_notification","taskId"})
		// is taken as an assignment too: the orchestrator's checks name that
		// deviation, and the agent still plays the rest of the scenario.
		msg, st := a.wait(-1, func(m *spec.Message) bool {
			return typeOf(m) == "notify:task-assigned" || typeOf(m) == "task_notification"
		})
		if st == stopped {
			return 0
		}
		if st != got {
			continue
		}
		id := msg.Payload.V.TaskID.V
		if id == "" {
			id = msg.TaskID.V
		}
		if code, done := a.doTask(id, msg); done {
			return code
		}
	}
}

func readStdin(r io.Reader, out chan<- *spec.Message) {
	defer close(out)
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		var line []byte
		var err error
		for {
			frag, isPrefix, e := br.ReadLine()
			if len(line)+len(frag) <= maxLine {
				line = append(line, frag...)
			}
			if e != nil || !isPrefix {
				err = e
				break
			}
		}
		if m, err := spec.Decode(line); err == nil {
			out <- m
		}
		if err != nil {
			return
		}
	}
}

func typeOf(m *spec.Message) string { return m.Type.V }

// wait waits up to d (d < 0: forever) for a message matching want, handling
// notifications meanwhile. A shutdown, EOF or the context end the wait with
// stopped (unless the fault ignores them); a cancellation of the current task is
// noted in a.cancelled.
func (a *agent) wait(d time.Duration, want func(*spec.Message) bool) (*spec.Message, status) {
	var timer <-chan time.Time
	if d >= 0 {
		timer = a.clk.After(d)
	}
	deaf := a.fault == FaultHang
	in := a.in
	for {
		select {
		case <-a.ctx.Done():
			return nil, stopped
		case <-timer:
			return nil, timedOut
		case m, ok := <-in:
			if !ok {
				if deaf || a.fault == FaultIgnoreShutdown {
					in = nil // the orchestrator is gone; keep going regardless
					continue
				}
				return nil, stopped
			}
			if deaf {
				continue
			}
			switch typeOf(m) {
			case "notify:shutdown":
				if a.fault == FaultIgnoreShutdown || (a.fault == FaultBlockOnRequest && a.awaiting) {
					continue
				}
				a.log("info", "shutting down", nil)
				a.flush()
				return nil, stopped
			case "notify:task-cancelled":
				id := m.Payload.V.TaskID.V
				if a.fault == FaultIgnoreCancel && id == a.taskID && !a.defied && a.defyAt.IsZero() {
					// Keep working: report progress a second later.
					a.defyAt = a.clk.Now().Add(time.Second)
				}
				if id != "" && a.fault != FaultIgnoreCancel {
					a.cancelled[id] = true
					if id == a.taskID {
						a.log("info", "task "+id+" cancelled; stopping", nil)
					}
				}
			}
			if want != nil && want(m) {
				return m, got
			}
		}
	}
}

// sleep waits d, or less when the current task is cancelled.
func (a *agent) sleep(d time.Duration) status {
	end := a.clk.Now().Add(d)
	for {
		if !a.defied && !a.defyAt.IsZero() && a.defyAt.Before(end) {
			end, a.defied = a.defyAt, true
		}
		left := end.Sub(a.clk.Now())
		if left <= 0 {
			return got
		}
		if a.cancelled[a.taskID] {
			return got
		}
		_, st := a.wait(left, func(m *spec.Message) bool { return typeOf(m) == "notify:task-cancelled" })
		if st == stopped {
			return stopped
		}
		if st == timedOut {
			return got
		}
	}
}

func (a *agent) id(prefix string) string {
	a.seq++
	if a.fault == FaultCounterIDs {
		return fmt.Sprintf("%s-%d", prefix, a.seq)
	}
	return spec.MessageID(prefix, fmt.Sprintf("%s/%d", a.agentID, a.seq))
}

func (a *agent) stamp() string {
	t := a.clk.Now().UTC()
	if a.fault == FaultBadTimestamps {
		return t.Format("02/01/2006 15:04")
	}
	return spec.FormatTime(t)
}

// message is the base structure; field order is the spec's.
type message struct {
	Type      string         `json:"type"`
	ID        string         `json:"id,omitempty"`
	Timestamp string         `json:"timestamp"`
	AgentID   string         `json:"agentId,omitempty"`
	Payload   map[string]any `json:"payload"`
}

func (a *agent) newMessage(typ, prefix string, payload map[string]any) message {
	m := message{Type: typ, ID: a.id(prefix), Timestamp: a.stamp(), AgentID: a.agentID, Payload: payload}
	if a.fault == FaultWrongAgentID {
		m.AgentID = a.agentID + "-impostor"
	}
	return m
}

func (a *agent) send(m message) {
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	a.writeLine(b)
}

func (a *agent) writeLine(b []byte) {
	a.lastWrite = a.clk.Now()
	a.out.Write(b)
	a.out.WriteByte('\n')
	if a.hold {
		a.hold = false
		return
	}
	a.out.Flush()
}

func (a *agent) flush() { a.out.Flush() }

func (a *agent) garbage() {
	if a.fault == FaultStdoutGarbage {
		a.writeLine([]byte(`{"status":"busy"}`))
		a.writeLine([]byte("compiling module 3 of 5..."))
	}
}

func (a *agent) log(level, msg string, ctx map[string]any) {
	p := map[string]any{"level": level, "message": msg}
	if ctx != nil {
		p["context"] = ctx
	}
	m := a.newMessage("event:log", "evt", p)
	if a.fault == FaultMissingID {
		m.ID = ""
	}
	if a.fault == FaultDuplicateKey {
		// The log template's own timestamp before the base fields.
		b := mustJSON(m)
		a.writeLine(append([]byte(`{"timestamp":`+string(mustJSON(m.Timestamp))+`,`), b[1:]...))
		return
	}
	a.send(m)
}

func (a *agent) progress(taskID string, p float64, msg string) message {
	m := a.newMessage("event:progress", "evt", map[string]any{"taskId": taskID, "progress": p, "message": msg})
	if a.fault == FaultEmptyReport {
		m.Payload = map[string]any{}
	}
	a.garbage()
	a.send(m)
	return m
}

// request sends a request and waits for its response (a message with no
// member when none came).
func (a *agent) request(typ string, payload map[string]any, wait time.Duration) (*spec.Message, status) {
	m := a.newMessage(typ, "req", payload)
	if a.fault == FaultWrongCorrelationID && a.lastReq != "" && typ == "request:query-tasks" {
		m.ID = a.lastReq // the previous request's id
	}
	a.lastReq = m.ID
	if a.gap > 0 && !a.lastWrite.IsZero() {
		if d := a.gap - a.clk.Now().Sub(a.lastWrite); d > 0 {
			<-a.clk.After(d)
		}
	}
	a.send(m)
	a.awaiting = true
	r, st := a.wait(wait, func(r *spec.Message) bool {
		return strings.HasPrefix(typeOf(r), "response:") && r.CorrelationID.V == m.ID
	})
	a.awaiting = false
	if r == nil {
		r = &spec.Message{}
	}
	return r, st
}

// doTask works on one assigned task. done reports that the agent must exit with code.
func (a *agent) doTask(taskID string, assigned *spec.Message) (code int, done bool) {
	a.taskID = taskID
	if a.fault == FaultHang {
		<-a.ctx.Done()
		return 0, true
	}
	if a.fault == FaultDuplicateResponse {
		id := assigned.ID.V
		a.writeLine(mustJSON(map[string]any{"type": "response:success", "id": a.id("res"), "correlationId": id, "timestamp": a.stamp(), "payload": map[string]any{"accepted": true}}))
	}
	sc := script{}
	b, oob := mockagent.Script(a.env)
	if oob {
		// Out of band (orchestrator side): never in the protocol's messages.
		json.Unmarshal(b, &sc)
		a.gap = time.Duration(sc.RequestGapMs * float64(time.Millisecond))
	}
	a.hold = sc.OneWrite
	a.log("info", "task "+taskID+" assigned", map[string]any{"taskId": taskID})
	if a.fault == FaultRateFlood {
		for i := 0; i < 150; i++ {
			a.log("info", fmt.Sprintf("flood %d", i), nil)
		}
	}
	if a.fault == FaultOversizePayload {
		a.log("info", strings.Repeat("x", 1536*1024), nil)
	}
	if a.fault == FaultUnknownMessageType {
		if _, st := a.request("request:delete-task", map[string]any{"taskId": taskID}, answerWait); st == stopped {
			return 0, true
		}
	}
	getID := taskID
	var getPayload map[string]any
	switch a.fault {
	case FaultInvalidRequest:
		getPayload = map[string]any{}
	case FaultForeignTask:
		getPayload = map[string]any{"taskId": "task-other"}
	default:
		getPayload = map[string]any{"taskId": getID}
	}
	resp, st := a.request("request:get-task", getPayload, answerWait)
	if st == stopped {
		return 0, true
	}
	// In band (agent side): the task's payload.mockagent, once read.
	if tp, ok := resp.Payload.V.Task.V.Payload.Get(); !oob && ok {
		if b, err := json.Marshal(tp["mockagent"]); err == nil {
			json.Unmarshal(b, &sc)
		}
	}
	for _, p := range sc.Probes {
		payload := p.Payload
		if payload == nil {
			payload = map[string]any{}
		}
		if _, st := a.request(p.Type, payload, answerWait); st == stopped {
			return 0, true
		}
	}
	if _, st := a.request("request:query-agents", map[string]any{"role": "worker"}, answerWait); st == stopped {
		return 0, true
	}
	if _, st := a.request("request:query-tasks", map[string]any{"status": "queued", "limit": 10}, answerWait); st == stopped {
		return 0, true
	}
	if sc.Submit || a.fault == FaultNestedDelegation {
		parent := taskID
		n := 1
		if a.fault == FaultNestedDelegation {
			n = spec.MaxDelegationDepth + 1 // one level too deep
		}
		for i := 1; i <= n; i++ {
			r, st := a.request("request:submit-task", map[string]any{
				"type": "implementation", "name": fmt.Sprintf("Follow-up %d of %s", i, taskID),
				"description": "Submitted by the mock agent.", "payload": map[string]any{"source": "mockagent"},
				"requiredRole": "worker", "dependencies": []any{parent}, "priority": 2,
			}, answerWait)
			if st == stopped {
				return 0, true
			}
			id := r.Payload.V.Task.V.ID.V
			if id == "" {
				break
			}
			parent = id
		}
	}
	if sc.AskUser {
		r, st := a.request("request:ask-user", map[string]any{
			"question": "Which authentication method should I use?",
			"options":  []any{map[string]any{"label": "OAuth 2.0", "value": "oauth"}, map[string]any{"label": "JWT", "value": "jwt"}},
			"timeout":  60000,
		}, 65*time.Second)
		if st == stopped {
			return 0, true
		}
		answer := "none (timed out)"
		if s := r.Payload.V.Answer.V; s != "" {
			answer = s
		}
		a.log("info", "user answered: "+answer, nil)
	}
	work := defaultWork
	if sc.WorkSeconds > 0 {
		work = time.Duration(sc.WorkSeconds * float64(time.Second))
	}
	if a.fault == FaultExceedTimeout || a.fault == FaultStopHeartbeats {
		work = time.Hour
	}
	start := a.clk.Now()
	var first message
	for step := 0; ; step++ {
		el := a.clk.Now().Sub(start)
		if el >= work {
			break
		}
		if a.cancelled[taskID] && a.fault != FaultIgnoreCancel {
			if sc.GetCancelled {
				if _, st := a.request("request:get-task", map[string]any{"taskId": taskID}, answerWait); st == stopped {
					return 0, true
				}
			}
			return 0, false
		}
		if a.fault == FaultCrashMidTask && el >= work/2 {
			return 1, true
		}
		if a.fault == FaultNoCompletionReport && el >= work/2 {
			return 0, a.idle()
		}
		if a.fault != FaultStopHeartbeats || step < 2 {
			p := float64(el) / float64(work)
			p = float64(int(p*100)) / 100
			switch {
			case a.fault == FaultMalformedJSON && step == 1:
				a.writeLine([]byte(`{"type":"event:progress","id":"evt-broken","payload":{"taskId":"` + taskID + `","progress":0.5,}`))
			default:
				m := a.progress(taskID, p, fmt.Sprintf("working on %s", taskID))
				if step == 0 {
					first = m
				}
				if a.fault == FaultDuplicateID && step == 1 {
					m.ID = first.ID
					a.send(m)
				}
			}
		}
		next := min(progressEvery, work-el)
		if a.fault == FaultCrashMidTask {
			next = min(next, max(work/2-el, 0))
		}
		if a.sleep(next) == stopped {
			return 0, true
		}
	}
	if a.fault == FaultCrashAfterPartialReport {
		m := a.newMessage("event:progress", "evt", map[string]any{"taskId": taskID, "progress": 1.0, "message": "done"})
		b, _ := json.Marshal(m)
		a.writeLine(b[:len(b)/2])
		return 1, true
	}
	a.progress(taskID, 1.0, "done")
	a.log("info", "task "+taskID+" completed", map[string]any{"taskId": taskID})
	return 0, false
}

// idle waits for shutdown without working.
func (a *agent) idle() bool {
	_, st := a.wait(-1, func(*spec.Message) bool { return false })
	return st == stopped
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
