package orchside

import (
	"encoding/json"
	"fmt"
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

// orchmsgRequestTimeout is the protocol's request timeout ("Requests timeout after
// 30 seconds", Timeouts).
const orchmsgRequestTimeout = 30 * time.Second

// orchmsgLint are the single-message rules of what the orchestrator sends.
var orchmsgLint = []string{"ORCH-TYPE", "ORCH-BASE", "ORCH-PAYLOAD", "ORCH-RESP", "ORCH-SCHEMA", "GEN-"}

var orchmsgChecks = []*conform.Check{
	{
		ID: "orchmsg/orch/notify/task-assigned", Protocol: "orchmsg", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Spec:        "orchmsg Orchestrator Notifications, Base Message Structure; bindings §orchestrators",
		Requirement: "Task Assigned: `notify:task-assigned` with `payload.taskId` (and a message) is the orchestrator's first message to the agent; every orchestrator message has `type`, `id` and `timestamp`.",
		Lint:        orchmsgLint,
		Bad:         "the orchestrator starts the agent and waits for it to ask, or assigns another taskId than the task it was given",
		Good:        `{"type":"notify:task-assigned","id":"ntf-d8cae4bb-f5be-40ab-8b88-1b74fbf505a7","timestamp":"2026-11-22T10:00:00Z","payload":{"taskId":"task-123","message":"Task assigned."}}`,
		Run:         orchmsgTaskAssigned,
	},
	{
		ID: "orchmsg/orch/corr/response-correlation", Protocol: "orchmsg", Family: "requests", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "orchmsg Correlation, Request/Response Pattern, Timeouts",
		Requirement: "Response includes `correlationId` matching request `id`. (Every request gets exactly one `response:success` or `response:error` with its id as `correlationId`, within the 30 s request timeout; no response answers a request that was not made.)",
		Bad:         `the agent sends {"type":"request:get-task","id":"req-7",...} and the orchestrator answers {"type":"response:success","correlationId":"req-6",...}, or never answers`,
		Good:        `{"type":"response:success","id":"res-9","correlationId":"req-7","timestamp":"...","payload":{"task":{...}}}`,
		Run:         orchmsgCorrelation,
	},
	{
		ID: "orchmsg/orch/rate/flood-rejected", Protocol: "orchmsg", Family: "rate-limit", Tier: conform.Resilient, Level: conform.SHOULD,
		Spec:        "orchmsg Security Considerations (3. Rate Limiting)",
		Requirement: "Rate Limiting: Prevent message flooding (100 msg/sec limit). (A request past the limit is not served: it gets a `response:error`; a request left without any answer is neither served nor rejected, and fails.)",
		Bad:         "the agent writes 150 log events in a burst, then request:get-task; the orchestrator answers the request with the task",
		Good:        "the orchestrator answers the request over the limit with response:error (\"Rate limit exceeded: at most 100 messages per second\") and serves the agent's requests again once the window has passed",
		Run:         orchmsgFloodRejected,
	},
	{
		ID: "orchmsg/orch/resp/fits-request", Protocol: "orchmsg", Family: "requests", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "orchmsg Supported Requests, Error Codes (aoplint ORCH-SEQ-008)",
		Requirement: "Each supported request gets the response its section shows: get-task and submit-task `payload.task`, query-agents `payload.agents`, query-tasks `payload.tasks`, ask-user `payload.answer`. (INVALID_MESSAGE_TYPE answers unknown types only; an error of aoplint's ORCH-SEQ-008 on the orchestrator's traffic fails this check.)",
		Lint:        []string{"ORCH-SEQ-008"},
		Bad:         `{"type":"response:error","correlationId":"req-1","error":{"code":"INVALID_MESSAGE_TYPE","message":"No handler for message type: request:ask-user"}} answering request:ask-user; or {"payload":{"taskId":"task-200"}} answering request:submit-task`,
		Good:        `{"type":"response:success","id":"res-3","correlationId":"req-3","timestamp":"...","payload":{"task":{"id":"task-200","status":"queued"}}} answering request:submit-task`,
		Run:         orchmsgFitsRequest,
	},
	{
		ID: "orchmsg/orch/errors/invalid-request", Protocol: "orchmsg", Family: "errors", Tier: conform.Resilient, Level: conform.SHOULD,
		Spec:        "orchmsg Error Codes (INVALID_REQUEST), Supported Requests (get-task)",
		Requirement: "INVALID_REQUEST: Malformed request. (A request:get-task without `payload.taskId` is answered `response:error` with code INVALID_REQUEST, never served.)",
		Bad:         `{"type":"request:get-task","id":"req-1","payload":{}} answered {"type":"response:error","correlationId":"req-1","error":{"code":"INTERNAL_ERROR","message":"Cannot read properties of undefined"}}`,
		Good:        `{"type":"response:error","id":"res-3f2a9c1e-7b4d-4e2a-9c1f-0d8e6b5a4c3d","correlationId":"req-1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b","timestamp":"2026-02-04T14:30:00Z","error":{"code":"INVALID_REQUEST","message":"payload.taskId is required"}}`,
		Run:         func(s *conform.Session) conform.Outcome { return orchmsgGetTaskError(s, "INVALID_REQUEST") },
	},
	{
		ID: "orchmsg/orch/errors/foreign-task", Protocol: "orchmsg", Family: "errors", Tier: conform.Resilient, Level: conform.SHOULD,
		Spec:        "orchmsg Security Considerations (Agents can only query their own tasks), Error Codes (NOT_FOUND, UNAUTHORIZED)",
		Requirement: "Authorization: Agents can only query their own tasks. (A request:get-task for a task the agent was not assigned is not served: `response:error` NOT_FOUND for a task that does not exist, UNAUTHORIZED for another agent's; INTERNAL_ERROR or any other code is wrong.)",
		Bad:         `{"type":"request:get-task","id":"req-1","payload":{"taskId":"task-other"}} answered with the task, or with {"code":"INTERNAL_ERROR","message":"Task not found"}`,
		Good:        `{"type":"response:error","id":"res-3f2a9c1e-7b4d-4e2a-9c1f-0d8e6b5a4c3d","correlationId":"req-1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b","timestamp":"2026-02-04T14:30:00Z","error":{"code":"NOT_FOUND","message":"Task task-other not found"}}`,
		Run:         func(s *conform.Session) conform.Outcome { return orchmsgGetTaskError(s, "NOT_FOUND", "UNAUTHORIZED") },
	},
	{
		ID: "orchmsg/orch/shutdown/grace-honoured", Protocol: "orchmsg", Family: "shutdown", Tier: conform.Full, Level: conform.MUST, Timing: true,
		Spec:        "orchmsg Orchestrator Notifications (Shutdown); bindings §orchmsg",
		Requirement: "Shutdown: `notify:shutdown` with `payload.gracePeriod` (ms). (The agent has the grace period to exit: no signal before it ends; an agent still running after it is stopped, SIGTERM then SIGKILL.)",
		Bad:         "the orchestrator sends notify:shutdown with gracePeriod 2000 and kills the agent at once, or leaves an agent that ignores the shutdown running",
		Good:        "the orchestrator sends notify:shutdown (gracePeriod 2000), waits 2 s, then sends SIGTERM to the agent that is still running and SIGKILL after a grace period",
		Run:         orchmsgShutdownGrace,
	},
}

// orchmsgIn decodes the orchestrator's messages to one launch.
func orchmsgIn(l *Launch) []struct {
	e *Event
	m map[string]any
} {
	var out []struct {
		e *Event
		m map[string]any
	}
	for _, e := range l.Messages("stdin", "") {
		var m map[string]any
		if json.Unmarshal([]byte(e.Line), &m) == nil {
			out = append(out, struct {
				e *Event
				m map[string]any
			}{e, m})
		}
	}
	return out
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
		return conform.Mismatch("the orchestrator never started the agent ($"+EnvAgent+")", "one launch of $"+EnvAgent, "none")
	}
	l := &ls[0]
	in := orchmsgIn(l)
	if len(in) == 0 {
		o := conform.Mismatch("the agent received no message", "notify:task-assigned for "+want, "nothing on stdin")
		o.Seq = l.Seqs("stdin", "stdin-eof")
		return o
	}
	first := in[0]
	p, _ := first.m["payload"].(map[string]any)
	got, _ := p["taskId"].(string)
	if first.e.Key != "notify:task-assigned" || got != want {
		o := conform.Mismatch("the orchestrator's first message is not the assignment of the task it was given", "notify:task-assigned, taskId "+want, first.e.Key+", taskId "+got)
		o.Seq = []int{first.e.Seq}
		return o
	}
	o := conform.Passf("notify:task-assigned for %s first", want)
	o.Seq = []int{first.e.Seq}
	return o
}

func orchmsgCorrelation(s *conform.Session) conform.Outcome {
	ls := launchesOf(s)
	if len(ls) == 0 {
		return conform.Mismatch("the orchestrator never started the agent ($"+EnvAgent+")", "one launch of $"+EnvAgent, "none")
	}
	scale := s.Scale
	if scale <= 0 {
		scale = 1
	}
	limit := time.Duration(float64(orchmsgRequestTimeout) * scale)
	requests := 0
	for li := range ls {
		l := &ls[li]
		end := l.LastSeen()
		type req struct {
			e       *Event
			answers int
		}
		reqs := map[string]*req{}
		var order []string
		for _, e := range l.Messages("stdout", "") {
			if !strings.HasPrefix(e.Key, "request:") {
				continue
			}
			var m map[string]any
			json.Unmarshal([]byte(e.Line), &m)
			id, _ := m["id"].(string)
			if id == "" || reqs[id] != nil {
				continue // the agent's fault (ORCH-BASE-001, ORCH-SEQ-003): not the orchestrator's to answer twice
			}
			reqs[id] = &req{e: e}
			order = append(order, id)
		}
		requests += len(order)
		for _, in := range orchmsgIn(l) {
			if !strings.HasPrefix(in.e.Key, "response:") {
				continue
			}
			c, _ := in.m["correlationId"].(string)
			r := reqs[c]
			if r == nil || in.e.At.Before(r.e.At) {
				o := conform.Mismatch(fmt.Sprintf("launch %d: a response answers no request the agent made", l.N), "correlationId = the id of a pending request", fmt.Sprintf("correlationId %q", c))
				o.Seq = []int{in.e.Seq}
				return o
			}
			r.answers++
			if r.answers > 1 {
				o := conform.Mismatch(fmt.Sprintf("launch %d: request %s was answered twice", l.N, c), "exactly one response", "a second response")
				o.Seq = []int{r.e.Seq, in.e.Seq}
				return o
			}
			if d := in.e.At.Sub(r.e.At); d > limit {
				o := conform.Mismatch(fmt.Sprintf("launch %d: request %s was answered after the request timeout", l.N, c), fmt.Sprintf("within %s", limit), d.Round(time.Millisecond).String())
				o.Seq = []int{r.e.Seq, in.e.Seq}
				return o
			}
		}
		for _, id := range order {
			r := reqs[id]
			if r.answers == 0 && end.Sub(r.e.At) >= limit {
				o := conform.Mismatch(fmt.Sprintf("launch %d: request %s (%s) was never answered", l.N, id, r.e.Key), fmt.Sprintf("a response within %s (response:error TIMEOUT at the latest)", limit), "none")
				o.Seq = []int{r.e.Seq}
				return o
			}
			if r.answers == 0 {
				o := conform.Mismatch(fmt.Sprintf("launch %d: request %s (%s) got no response before the agent ended", l.N, id, r.e.Key), "a response with correlationId "+id, "none")
				o.Seq = []int{r.e.Seq}
				return o
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
		return conform.Mismatch("the orchestrator never started the agent ($"+EnvAgent+")", "one launch of $"+EnvAgent, "none")
	}
	l := &ls[0]
	var shut *Event
	var grace time.Duration
	for _, in := range orchmsgIn(l) {
		if in.e.Key == "notify:shutdown" {
			p, _ := in.m["payload"].(map[string]any)
			g, ok := p["gracePeriod"].(float64)
			if !ok || g < 0 {
				o := conform.Mismatch("notify:shutdown without a gracePeriod", "payload.gracePeriod in ms", fmt.Sprint(p["gracePeriod"]))
				o.Seq = []int{in.e.Seq}
				return o
			}
			shut, grace = in.e, time.Duration(g*float64(time.Millisecond))
			break
		}
	}
	if shut == nil {
		o := conform.Mismatch("the orchestrator never sent notify:shutdown to an agent that lingered after its task was done", "notify:shutdown", "none")
		o.Seq = l.Seqs("signal", "stdin-eof", "exit")
		return o
	}
	for _, e := range l.Events {
		if e.Kind == "signal" && e.At.Before(shut.At) {
			o := conform.Mismatch("the agent was signalled before notify:shutdown", "notify:shutdown, then the grace period", e.Signal+" first")
			o.Seq = []int{e.Seq}
			return o
		}
	}
	if ex := l.Exit(); ex != nil && !hasSignal(l) && ex.At.Sub(shut.At) < grace {
		return conform.NotTestedf("the agent exited within the grace period (the scenario's cue to ignore the shutdown failed)")
	}
	return stopWindow(s, l, shut.At, grace, false, fmt.Sprintf("the shutdown's grace period of %s", grace))
}

// orchmsgGetTaskError judges the answer to the agent's first request:get-task
// for another task than the one assigned, or without one (the scenario's cue):
// a response:error with one of the codes.
func orchmsgGetTaskError(s *conform.Session, codes ...string) conform.Outcome {
	ls := launchesOf(s)
	if len(ls) == 0 {
		return conform.Mismatch("the orchestrator never started the agent ($"+EnvAgent+")", "one launch of $"+EnvAgent, "none")
	}
	var g struct {
		TaskID string `json:"taskId"`
	}
	json.Unmarshal([]byte(FactTask.Get(s)), &g)
	l := &ls[0]
	for _, e := range l.Messages("stdout", "request:get-task") {
		var m map[string]any
		json.Unmarshal([]byte(e.Line), &m)
		p, _ := m["payload"].(map[string]any)
		if tid, _ := p["taskId"].(string); tid == g.TaskID && tid != "" {
			continue
		}
		id, _ := m["id"].(string)
		for _, in := range orchmsgIn(l) {
			if c, _ := in.m["correlationId"].(string); c != id || id == "" || !strings.HasPrefix(in.e.Key, "response:") {
				continue
			}
			want := "response:error with code " + strings.Join(codes, " or ")
			if in.e.Key != "response:error" {
				return withSeq(conform.Mismatch("the orchestrator served request:get-task "+clipJSON(p)+", which asks for no task of the agent's", want, in.e.Key), e.Seq, in.e.Seq)
			}
			eo, _ := in.m["error"].(map[string]any)
			code, _ := eo["code"].(string)
			for _, c := range codes {
				if code == c {
					return withSeq(conform.Passf("request:get-task %s answered response:error %s", clipJSON(p), code), e.Seq, in.e.Seq)
				}
			}
			return withSeq(conform.Mismatch("request:get-task "+clipJSON(p)+" answered with the wrong error code (Error Codes)", want, fmt.Sprintf("response:error %q", code)), e.Seq, in.e.Seq)
		}
		return withSeq(conform.Mismatch("request:get-task "+clipJSON(p)+" got no answer", "response:error with code "+strings.Join(codes, " or "), "no response"), e.Seq)
	}
	return conform.NotTestedf("the agent asked for no other task (the scenario's cue failed)")
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
		return conform.Mismatch("the orchestrator never started the agent ($"+EnvAgent+")", "one launch of $"+EnvAgent, "none")
	}
	answered := 0
	var seqs []int
	for i := range ls {
		l := &ls[i]
		asked := map[string]bool{}
		for _, e := range l.Messages("stdout", "") {
			if strings.HasPrefix(e.Key, "request:") {
				var m map[string]any
				json.Unmarshal([]byte(e.Line), &m)
				if id, _ := m["id"].(string); id != "" {
					asked[id] = true
				}
			}
		}
		for _, in := range orchmsgIn(l) {
			if c, _ := in.m["correlationId"].(string); asked[c] && strings.HasPrefix(in.e.Key, "response:") {
				answered++
				seqs = append(seqs, in.e.Seq)
			}
		}
	}
	if answered == 0 {
		return conform.NotTestedf("no request of the agent was answered (the correlation check reports unanswered ones)")
	}
	o := conform.Passf("%d response(s), each fits the request it answers (aoplint ORCH-SEQ-008)", answered)
	o.Seq = seqs
	return o
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
		return conform.Mismatch("the orchestrator never started the agent ($"+EnvAgent+")", "one launch of $"+EnvAgent, "none")
	}
	l := &ls[0]
	answers := map[string]*Event{}
	for _, in := range orchmsgIn(l) {
		if c, _ := in.m["correlationId"].(string); c != "" && answers[c] == nil && strings.HasPrefix(in.e.Key, "response:") {
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
	over, unsure, unanswered := 0, 0, 0
	var lost []int
	for _, e := range l.Messages("stdout", "") {
		o, _, firstAt := rate.Add(e.At, e)
		if !o || !strings.HasPrefix(e.Key, "request:") {
			continue
		}
		var m map[string]any
		json.Unmarshal([]byte(e.Line), &m)
		id, _ := m["id"].(string)
		a := answers[id]
		if a == nil {
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
		o2 := conform.Mismatch(fmt.Sprintf("request %s came past %d messages in %s (the oldest written %s before the answer was read) and was served", id, spec.RateLimit, spec.RateWindow, a.At.Sub(firstAt).Round(time.Millisecond)), "response:error", "response:success")
		o2.Seq = []int{e.Seq, a.Seq}
		return o2
	}
	switch {
	case over > 0:
		return conform.Passf("%d request(s) past the rate limit were answered response:error", over)
	case unanswered > 0 && unsure == 0:
		o := conform.Mismatch(fmt.Sprintf("%d request(s) past the rate limit got no answer at all: an unanswered request is neither served nor rejected", unanswered), "response:error for a request past the limit", "no response")
		o.Seq = lost
		return o
	case unsure > 0:
		return conform.NotTestedf("%d request(s) past the rate limit by the agent's clock were served, but the answers came more than %s after the window's oldest message: the orchestrator may have read the flood slower than it came (a loaded machine)", unsure, spec.RateWindow)
	}
	return conform.NotTestedf("no request of the agent came past the rate limit (the scenario's cue to flood failed)")
}
