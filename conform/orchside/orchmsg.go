package orchside

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	engorchmsg "github.com/aopkit/aopkit/conform/engine/orchmsg"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

func init() {
	sides["orchmsg"] = &side{key: engorchmsg.Key, freeStdout: true}
	conform.Register(orchmsgChecks...)
	conform.Register(refCheck("orchmsg"))
}

// orchmsgLint are the single-message rules of what the orchestrator sends.
var orchmsgLint = []string{"ORCH-TYPE", "ORCH-BASE", "ORCH-PAYLOAD", "ORCH-RESP", "ORCH-SCHEMA", "GEN-"}

var orchmsgChecks = []*conform.Check{
	{
		ID: "orchmsg/orch/notify/task-assigned", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Spec:        "orchmsg Orchestrator Notifications, Base Message Structure; bindings §orchestrators",
		Requirement: "Task Assigned: `notify:task-assigned` with `payload.taskId` (and a message) is the orchestrator's first message to the agent; every orchestrator message has `type`, `id` and `timestamp`.",
		Lint:        orchmsgLint,
		Bad:         "the orchestrator starts the agent and waits for it to ask, or assigns another taskId than the task it was given",
		Good:        `{"type":"notify:task-assigned","id":"ntf-d8cae4bb-f5be-40ab-8b88-1b74fbf505a7","timestamp":"2026-11-22T10:00:00Z","payload":{"taskId":"task-123","message":"Task assigned."}}`,
		Run:         orchmsgTaskAssigned,
	},
	{
		ID: "orchmsg/orch/corr/response-correlation", Family: "requests", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "orchmsg Correlation, Request/Response Pattern, Timeouts",
		Requirement: "Response includes `correlationId` matching request `id`. (Every request gets exactly one `response:success` or `response:error` with its id as `correlationId`, within the 30 s request timeout (ask-user: its own `timeout`), + 5 s, × --timeout-scale; no response answers a request that was not made. A request still pending when the harness stopped the orchestrator, or that crossed the orchestrator's own stop of the agent, is not judged.)",
		Lint:        []string{"ORCH-SEQ-001", "ORCH-SEQ-002"},
		Requires:    []string{"orchmsg/§correlation/response-matches"},
		Bad:         `the agent sends {"type":"request:get-task","id":"req-7",...} and the orchestrator answers {"type":"response:success","correlationId":"req-6",...}, or never answers`,
		Good:        `{"type":"response:success","id":"res-9","correlationId":"req-7","timestamp":"...","payload":{"task":{...}}}`,
		Run:         orchmsgCorrelation,
	},
	{
		ID: "orchmsg/orch/rate/flood-rejected", Family: "rate-limit", Tier: conform.Resilient, Level: conform.SHOULD,
		Spec:        "orchmsg Security Considerations (3. Rate Limiting)",
		Requirement: "Rate Limiting: Prevent message flooding (100 msg/sec limit). (A request past the limit is not served: it gets a `response:error`; a request left without any answer is neither served nor rejected, and fails.)",
		Bad:         "the agent writes 150 log events in a burst, then request:get-task; the orchestrator answers the request with the task",
		Good:        "the orchestrator answers the request over the limit with response:error (\"Rate limit exceeded: at most 100 messages per second\") and serves the agent's requests again once the window has passed",
		Run:         orchmsgFloodRejected,
	},
	{
		ID: "orchmsg/orch/resp/fits-request", Family: "requests", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "orchmsg Supported Requests, Error Codes (aoplint ORCH-SEQ-008)",
		Requirement: "Each supported request gets the response its section shows: get-task and submit-task `payload.task`, query-agents `payload.agents`, query-tasks `payload.tasks`, ask-user `payload.answer`. (INVALID_MESSAGE_TYPE answers unknown types only; an error of aoplint's ORCH-SEQ-008 on the orchestrator's traffic fails this check.)",
		Lint:        []string{"ORCH-SEQ-008"},
		Bad:         `{"type":"response:error","correlationId":"req-1","error":{"code":"INVALID_MESSAGE_TYPE","message":"No handler for message type: request:ask-user"}} answering request:ask-user; or {"payload":{"taskId":"task-200"}} answering request:submit-task`,
		Good:        `{"type":"response:success","id":"res-3","correlationId":"req-3","timestamp":"...","payload":{"task":{"id":"task-200","status":"queued"}}} answering request:submit-task`,
		Run:         orchmsgFitsRequest,
	},
	{
		ID: "orchmsg/orch/errors/invalid-request", Family: "errors", Tier: conform.Resilient, Level: conform.SHOULD,
		Spec:        "orchmsg Error Codes (INVALID_REQUEST), Supported Requests (get-task)",
		Requirement: "INVALID_REQUEST: Malformed request. (A request:get-task without `payload.taskId` is answered `response:error` with code INVALID_REQUEST, never served.)",
		Bad:         `{"type":"request:get-task","id":"req-1","payload":{}} answered {"type":"response:error","correlationId":"req-1","error":{"code":"INTERNAL_ERROR","message":"Cannot read properties of undefined"}}`,
		Good:        `{"type":"response:error","id":"res-3f2a9c1e-7b4d-4e2a-9c1f-0d8e6b5a4c3d","correlationId":"req-1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b","timestamp":"2026-02-04T14:30:00Z","error":{"code":"INVALID_REQUEST","message":"payload.taskId is required"}}`,
		Requires:    []string{"orchmsg/§error-codes/invalid-request"},
		Run: func(s *conform.Session) conform.Outcome {
			return orchmsgGetTaskError(s, "a request without a taskId", func(_ orchmsgTaskFile, tid string, _ bool) bool { return tid == "" }, "INVALID_REQUEST")
		},
	},
	{
		ID: "orchmsg/orch/errors/foreign-task", Family: "errors", Tier: conform.Resilient, Level: conform.SHOULD,
		Spec:        "orchmsg Security Considerations (Agents can only query their own tasks), Error Codes (UNAUTHORIZED)",
		Requirement: "Authorization: Agents can only query their own tasks. (A request:get-task for another agent's task — one the task file's `orchestrator.tasks` seeds, assigned to agent-2 — is not served: `response:error` UNAUTHORIZED, the spec's code for an agent not authorized for the operation; NOT_FOUND, INTERNAL_ERROR or any other code is wrong. A task that does not exist: orchmsg/orch/errors/not-found.)",
		Requires:    []string{"orchmsg/§error-codes/unauthorized", "orchmsg/§security-considerations/authorization-enforced"},
		Bad:         `{"type":"request:get-task","id":"req-1","payload":{"taskId":"task-other"}} answered with the task, or with {"code":"INTERNAL_ERROR","message":"Task not found"}`,
		Good:        `{"type":"response:error","id":"res-3f2a9c1e-7b4d-4e2a-9c1f-0d8e6b5a4c3d","correlationId":"req-1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b","timestamp":"2026-02-04T14:30:00Z","error":{"code":"UNAUTHORIZED","message":"Agents can only query their own tasks"}}`,
		Run: func(s *conform.Session) conform.Outcome {
			return orchmsgGetTaskError(s, "another agent's task", func(w orchmsgTaskFile, tid string, _ bool) bool {
				for _, t := range w.Orchestrator.Tasks {
					if t.ID == tid {
						return true
					}
				}
				return false
			}, "UNAUTHORIZED")
		},
	},
	{
		ID: "orchmsg/orch/shutdown/grace-honoured", Family: "shutdown", Tier: conform.Full, Level: conform.MUST, Timing: true,
		Spec:        "orchmsg Orchestrator Notifications (Shutdown); bindings §orchmsg",
		Requirement: "Shutdown: `notify:shutdown` with `payload.gracePeriod` (ms). (The agent has the grace period to exit: no signal before it ends; an agent still running after it is stopped, SIGTERM then SIGKILL.)",
		Bad:         "the orchestrator sends notify:shutdown with gracePeriod 2000 and kills the agent at once, or leaves an agent that ignores the shutdown running",
		Good:        "the orchestrator sends notify:shutdown (gracePeriod 2000), waits 2 s, then sends SIGTERM to the agent that is still running and SIGKILL after a grace period",
		Run:         orchmsgShutdownGrace,
	},
}

// orchmsgEvent is a message of a launch and the message, decoded.
type orchmsgEvent struct {
	e *Event
	m *spec.Message
}

// orchmsgIn decodes the orchestrator's messages to one launch.
func orchmsgIn(l *Launch) []orchmsgEvent {
	var out []orchmsgEvent
	for _, e := range l.Messages("stdin", "") {
		if m, err := spec.Decode([]byte(e.Line)); err == nil {
			out = append(out, orchmsgEvent{e, m})
		}
	}
	return out
}

// orchmsgMsg is a message as lint/spec/orchmsg decodes it: one with no member
// when the line is no message.
func orchmsgMsg(line string) *spec.Message {
	m, err := spec.Decode([]byte(line))
	if err != nil {
		return &spec.Message{}
	}
	return m
}

// orchmsgPayloadJSON quotes a payload: null when it is no object.
func orchmsgPayloadJSON(m *spec.Message) string {
	if !m.Payload.OK {
		return clipJSON(nil)
	}
	return clipJSON(m.Payload.Any())
}

func orchmsgGiven(s *conform.Session) (string, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal([]byte(FactTask.Get(s)), &p); err != nil || p.TaskID == "" {
		return "", fmt.Errorf("the scenario's task has no taskId")
	}
	return p.TaskID, nil
}

func orchmsgTaskAssigned(s *conform.Session) conform.Outcome {
	want, err := orchmsgGiven(s)
	if err != nil {
		return conform.NotTestedf("%v", err)
	}
	ls := launchesOf(s)
	if len(ls) == 0 {
		return orchmsgNoLaunch()
	}
	l := &ls[0]
	in := orchmsgIn(l)
	if len(in) == 0 {
		return conform.Mismatch("the agent received no message", "notify:task-assigned for "+want, "nothing on stdin").At(l.Seqs("stdin", "stdin-eof")...)
	}
	first := in[0]
	got := first.m.Payload.V.TaskID.V
	if first.e.Key != "notify:task-assigned" || got != want {
		return conform.Mismatch("the orchestrator's first message is not the assignment of the task it was given", "notify:task-assigned, taskId "+want, first.e.Key+", taskId "+got).At(first.e.Seq)
	}
	return conform.Passf("notify:task-assigned for %s first", want).At(first.e.Seq)
}

// orchmsgStoppedAround reports whether the orchestrator itself began to stop
// the agent (notify:shutdown, its own signal, the end of its stdin) before a
// request of the agent written at t, or within 2 s (× scale) after it: the
// shutdown and the request crossed, and the agent ended before any answer.
func orchmsgStoppedAround(l *Launch, t time.Time, scale float64) bool {
	within := t.Add(time.Duration(float64(2*time.Second) * scale))
	for _, e := range l.Events {
		stop := (e.Kind == "stdin" && e.Key == "notify:shutdown") || ((e.Kind == "signal" || e.Kind == "stdin-eof") && e.By == "")
		if stop && !e.At.After(within) {
			return true
		}
	}
	return false
}

// correlationSlack is how much later than its deadline a request may be
// answered before response-correlation calls it unanswered in time (× scale).
const correlationSlack = 5 * time.Second

func orchmsgCorrelation(s *conform.Session) conform.Outcome {
	ls := launchesOf(s)
	if len(ls) == 0 {
		return orchmsgNoLaunch()
	}
	scale := scaleOf(s)
	requests := 0
	for li := range ls {
		l := &ls[li]
		// Until when the orchestrator alone acted: a request still pending when
		// the harness stopped it (the deadline, or once decided) was not
		// withheld by it.
		end := orchmsgWatched(s, l)
		cutByHarness := end.Before(l.LastSeen())
		type req struct {
			e       *Event
			limit   time.Duration
			answers int
		}
		reqs := map[string]*req{}
		var order []string
		for _, e := range l.Messages("stdout", "") {
			if !strings.HasPrefix(e.Key, "request:") {
				continue
			}
			m := orchmsgMsg(e.Line)
			id := m.ID.V
			if id == "" || reqs[id] != nil {
				continue // the agent's fault (ORCH-BASE-001, ORCH-SEQ-003): not the orchestrator's to answer twice
			}
			p := &m.Payload.V
			// ask-user waits for the user as long as its own timeout says; a
			// TIMEOUT at the deadline is the answer, read later on a loaded
			// machine (how punctual it is: orchmsg/orch/errors/timeout).
			limit := time.Duration(float64(spec.RequestDeadline(e.Key, askTimeout(p))+correlationSlack) * scale)
			reqs[id] = &req{e: e, limit: limit}
			order = append(order, id)
		}
		requests += len(order)
		for _, in := range orchmsgIn(l) {
			if !strings.HasPrefix(in.e.Key, "response:") {
				continue
			}
			c := in.m.CorrelationID.V
			r := reqs[c]
			if r == nil || in.e.At.Before(r.e.At) {
				return conform.Mismatch(fmt.Sprintf("launch %d: a response answers no request the agent made", l.N), "correlationId = the id of a pending request", fmt.Sprintf("correlationId %q", c)).At(in.e.Seq)
			}
			r.answers++
			if r.answers > 1 {
				return conform.Mismatch(fmt.Sprintf("launch %d: request %s was answered twice", l.N, c), "exactly one response", "a second response").At(r.e.Seq, in.e.Seq)
			}
			if d := in.e.At.Sub(r.e.At); d > r.limit {
				return conform.Mismatch(fmt.Sprintf("launch %d: request %s was answered after the request timeout", l.N, c), fmt.Sprintf("within %s", r.limit), d.Round(time.Millisecond).String()).At(r.e.Seq, in.e.Seq)
			}
		}
		for _, id := range order {
			r := reqs[id]
			if r.answers == 0 && end.Sub(r.e.At) >= r.limit {
				return conform.Mismatch(fmt.Sprintf("launch %d: request %s (%s) was never answered", l.N, id, r.e.Key), fmt.Sprintf("a response within %s (response:error TIMEOUT at the latest)", r.limit), "none").At(r.e.Seq)
			}
			if r.answers == 0 && !cutByHarness && !orchmsgStoppedAround(l, r.e.At, scale) {
				return conform.Mismatch(fmt.Sprintf("launch %d: request %s (%s) got no response before the agent ended", l.N, id, r.e.Key), "a response with correlationId "+id, "none").At(r.e.Seq)
			}
		}
	}
	if requests == 0 {
		return conform.NotTestedf("the agent made no request")
	}
	return conform.Passf("%d request(s), each answered once with its id as correlationId", requests)
}

func orchmsgShutdownGrace(s *conform.Session) conform.Outcome {
	ls := launchesOf(s)
	if len(ls) == 0 {
		return orchmsgNoLaunch()
	}
	l := &ls[0]
	var shut *Event
	var grace time.Duration
	for _, in := range orchmsgIn(l) {
		if in.e.Key == "notify:shutdown" {
			gp := in.m.Payload.V.GracePeriod
			g, ok := gp.Get()
			if !ok || g < 0 {
				return conform.Mismatch("notify:shutdown without a gracePeriod", "payload.gracePeriod in ms", fmt.Sprint(gp.Any())).At(in.e.Seq)
			}
			shut, grace = in.e, time.Duration(g*float64(time.Millisecond))
			break
		}
	}
	if shut == nil {
		return conform.Mismatch("the orchestrator never sent notify:shutdown to an agent that lingered after its task was done", "notify:shutdown", "none").At(l.Seqs("signal", "stdin-eof", "exit")...)
	}
	for _, e := range l.Events {
		// The harness's own signals (its stop of the orchestrator's group)
		// are no act of the orchestrator.
		if e.Kind == "signal" && e.By == "" && e.At.Before(shut.At) {
			return conform.Mismatch("the agent was signalled before notify:shutdown", "notify:shutdown, then the grace period", e.Signal+" first").At(e.Seq)
		}
	}
	if ex := l.Exit(); ex != nil && !hasSignal(l) && ex.At.Sub(shut.At) < grace {
		return conform.NotTestedf("the agent exited within the grace period (the scenario's cue to ignore the shutdown failed)")
	}
	return stopWindow(s, l, shut.At, grace, false, fmt.Sprintf("the shutdown's grace period of %s", grace))
}

// orchmsgGetTaskError judges the answer to the agent's first request:get-task
// that pick selects (the scenario's cue: a get-task without a taskId, for
// another agent's task, for one that does not exist): a response:error with
// one of the codes. known tells pick whether the orchestrator had the task
// (the assigned one, one the task file seeds, one the agent submitted).
func orchmsgGetTaskError(s *conform.Session, what string, pick func(w orchmsgTaskFile, tid string, known bool) bool, codes ...string) conform.Outcome {
	ls := launchesOf(s)
	if len(ls) == 0 {
		return orchmsgNoLaunch()
	}
	w := orchmsgWorld(s)
	known := map[string]bool{w.TaskID: w.TaskID != ""}
	for _, t := range w.Orchestrator.Tasks {
		known[t.ID] = true
	}
	xs := orchmsgExchanges(&ls[0])
	for _, x := range xs {
		if x.typ == "request:submit-task" && x.ans != nil {
			if id := x.answer.Payload.V.Task.V.ID.V; id != "" {
				known[id] = true
			}
		}
	}
	want := "response:error with code " + strings.Join(codes, " or ")
	for _, x := range xs {
		tid := x.payload().TaskID.V
		if x.typ != "request:get-task" || tid == w.TaskID && tid != "" || !pick(w, tid, known[tid]) {
			continue
		}
		asked := "request:get-task " + orchmsgPayloadJSON(x.msg) + " (" + what + ")"
		switch {
		case cutShort(s, x):
			return conform.NotTestedf("%s was still pending when the harness stopped the orchestrator", asked)
		case x.ans == nil:
			return conform.Mismatch(asked+" got no answer", want, "no response").At(x.seqs()...)
		case x.ans.Key != "response:error":
			return sent(conform.Mismatch("the orchestrator served "+asked, want, x.ans.Key).At(x.seqs()...))
		case !slices.Contains(codes, x.code()):
			return sent(conform.Mismatch(asked+" answered with the wrong error code (Error Codes)", want, x.answered()).At(x.seqs()...))
		}
		return conform.Passf("%s answered response:error %s", asked, x.code()).At(x.seqs()...)
	}
	return conform.NotTestedf("the agent asked for no %s (the scenario's cue failed)", what)
}

func clipJSON(v any) string {
	b, _ := json.Marshal(v)
	return conform.Clip(string(b), 120)
}

// hasSignal reports whether the orchestrator signalled the agent (the
// harness's signals do not count).
// orchmsgFitsRequest counts the requests the orchestrator answered; what each
// answer holds is aoplint's ORCH-SEQ-008 on the transcript (the check's Lint),
// one home for the rule.
func orchmsgFitsRequest(s *conform.Session) conform.Outcome {
	ls := launchesOf(s)
	if len(ls) == 0 {
		return orchmsgNoLaunch()
	}
	var seqs []int
	for i := range ls {
		for _, x := range orchmsgExchanges(&ls[i]) {
			if x.ans != nil {
				seqs = append(seqs, x.ans.Seq)
			}
		}
	}
	if len(seqs) == 0 {
		return conform.NotTestedf("no request of the agent was answered (the correlation check reports unanswered ones)")
	}
	return conform.Passf("%d response(s), each fits the request it answers (aoplint ORCH-SEQ-008)", len(seqs)).At(seqs...)
}

func hasSignal(l *Launch) bool {
	for _, e := range l.Events {
		if e.Kind == "signal" && e.By == "" {
			return true
		}
	}
	return false
}

func orchmsgFloodRejected(s *conform.Session) conform.Outcome {
	ls := launchesOf(s)
	if len(ls) == 0 {
		return orchmsgNoLaunch()
	}
	l := &ls[0]
	answers := map[string]*Event{}
	for _, in := range orchmsgIn(l) {
		if c := in.m.CorrelationID.V; c != "" && answers[c] == nil && strings.HasPrefix(in.e.Key, "response:") {
			answers[c] = in.e
		}
	}
	// The agent's clock says when it wrote each message; the orchestrator counts
	// them when it reads them, later by however long it took to read (a loaded
	// machine). A served request is judged over the limit only when it was over
	// by any reading the orchestrator can have had: the oldest message of the
	// window was written, and the answer read by the agent, within RateWindow
	// (the orchestrator read both in between). Otherwise it is not judged.
	var rate spec.Rate[*Event]
	over, unsure, unanswered, cut := 0, 0, 0, 0
	var lost []int
	// An answer owed later than the harness's first act on the orchestrator
	// (or the agent's end) was not withheld by it: the request is not judged.
	watched := orchmsgWatched(s, l)
	answerWithin := time.Duration(float64(time.Second) * scaleOf(s))
	for _, e := range l.Messages("stdout", "") {
		o, _, firstAt := rate.Add(e.At, e)
		if !o || !strings.HasPrefix(e.Key, "request:") {
			continue
		}
		id := orchmsgMsg(e.Line).ID.V
		a := answers[id]
		if a == nil {
			if watched.Sub(e.At) < answerWithin {
				cut++
				continue
			}
			// No answer is no rejection: neither served nor refused.
			unanswered++
			lost = append(lost, e.Seq)
			continue
		}
		if a.Key != "response:success" {
			over++
			continue
		}
		if a.At.Sub(firstAt) >= spec.RateWindow {
			unsure++
			continue
		}
		return conform.Mismatch(fmt.Sprintf("request %s came past %d messages in %s (the oldest written %s before the answer was read) and was served", id, spec.RateLimit, spec.RateWindow, a.At.Sub(firstAt).Round(time.Millisecond)), "response:error", "response:success").At(e.Seq, a.Seq)
	}
	switch {
	case unanswered > 0:
		// Judged on what was answered and what was not: one request past the
		// limit rejected does not excuse another left without any answer.
		return conform.Mismatch(fmt.Sprintf("%d request(s) past the rate limit got no answer at all (%d rejected): an unanswered request is neither served nor rejected", unanswered, over), "response:error for every request past the limit", "no response").At(lost...)
	case over > 0:
		return conform.Passf("%d request(s) past the rate limit were answered response:error", over)
	case unsure > 0:
		return conform.NotTestedf("%d request(s) past the rate limit by the agent's clock were served, but the answers came more than %s after the window's oldest message: the orchestrator may have read the flood slower than it came (a loaded machine)", unsure, spec.RateWindow)
	case cut > 0:
		return conform.NotTestedf("%d request(s) past the rate limit were still pending when the harness stopped the orchestrator or the agent ended", cut)
	}
	return conform.NotTestedf("no request of the agent came past the rate limit (the scenario's cue to flood failed)")
}
