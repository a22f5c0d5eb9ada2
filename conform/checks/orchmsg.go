package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

var orchmsgC = common{protocol: "orchmsg", bindings: "bindings §orchmsg"}

func orchmsgCheck(id, family string, tier conform.Tier, level conform.Level, spec, req string, lint []string, run func(*conform.Session) conform.Outcome) *conform.Check {
	return &conform.Check{ID: "orchmsg/" + id, Protocol: "orchmsg", Family: family, Tier: tier, Level: level, Spec: spec, Requirement: req, Lint: lint, Run: run}
}

// orchmsgMsgs returns the agent's JSON messages that have a type field.
func orchmsgMsgs(s *conform.Session) []*conform.Record {
	var out []*conform.Record
	for _, r := range s.AgentMsgs(0) {
		if r.Key != "" {
			out = append(out, r)
		}
	}
	return out
}

// orchmsgTaskID is the task the harness assigned.
func orchmsgTaskID(s *conform.Session) string {
	if a := s.Attempt(1); a != nil {
		return str(decode(a.Input), "payload", "taskId")
	}
	return ""
}

var orchmsgChecks = []*conform.Check{
	orchmsgC.lintClean("orchmsg §Message Format, §Supported Requests, §Supported Events"),
	orchmsgC.exitZero("After notify:shutdown (or when its work is done) the agent exits 0 by itself."),
	orchmsgC.stopOnTerm("timeouts"),
	orchmsgC.stdoutOnly(conform.Full, conform.SHOULD, "orchmsg §Parsing Strategy, §Backward Compatibility",
		"If not JSON → treat as log output: tolerated, but a conforming agent keeps non-protocol output off stdout (event:log or stderr).",
		func(r *conform.Record) bool { return r.Msg != nil && r.Key != "" }),

	orchmsgCheck("format/base-fields", "happy-path", conform.Core, conform.MUST, "orchmsg §Base Message Structure",
		"interface BaseMessage { type: MessageType; id: string; timestamp: string (ISO 8601); agentId?: string } — agentId, when given, is the agent's own (ORCHMSG_AGENT_ID).",
		[]string{"ORCH-BASE-001", "ORCH-BASE-002", "ORCH-SEQ-010"},
		func(s *conform.Session) conform.Outcome {
			msgs := orchmsgMsgs(s)
			if len(msgs) == 0 {
				return conform.Failf("the agent sent no protocol message")
			}
			for _, r := range msgs {
				m := decode(r.Msg)
				id, idOK := field(m, "id").(string)
				ts := str(m, "timestamp")
				if aid, ok := field(m, "agentId").(string); ok && aid != "agent-under-test" {
					o := conform.Mismatch(fmt.Sprintf("record %d carries another agent's agentId", r.Seq), "agentId \"agent-under-test\" (ORCHMSG_AGENT_ID) or none", aid)
					o.Seq = []int{r.Seq}
					return o
				}
				if _, _, tsOK := spec.ParseTime(ts); !idOK || id == "" || !tsOK {
					o := conform.Mismatch(fmt.Sprintf("record %d lacks a string id or an ISO 8601 timestamp", r.Seq), map[string]string{"id": "a non-empty string", "timestamp": "ISO 8601"}, map[string]any{"id": field(m, "id"), "timestamp": field(m, "timestamp")})
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("%d messages with type, id and timestamp", len(msgs))
		}),

	orchmsgCheck("format/uuid-ids", "happy-path", conform.Full, conform.SHOULD, "orchmsg §Base Message Structure; §Correlation",
		"id: string; // UUID for correlation — Each request gets unique UUID: an id is a UUID, bare (randomUUID()) or with a short prefix (\"req-123e4567-…\"), by aoplint's own test (ORCH-BASE-003, a warning).",
		[]string{"ORCH-BASE-003"},
		func(s *conform.Session) conform.Outcome {
			msgs := orchmsgMsgs(s)
			if len(msgs) == 0 {
				return conform.NotTestedf("the agent sent no protocol message")
			}
			for _, r := range msgs {
				// A missing or empty id is format/base-fields' (a MUST).
				if id, ok := field(decode(r.Msg), "id").(string); ok && id != "" && !spec.IsID(id) {
					o := conform.Mismatch(fmt.Sprintf("record %d's id is not a UUID", r.Seq), "a UUID, bare or with a short prefix (\"req-123e4567-e89b-12d3-a456-426614174000\")", id)
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("%d messages, every id a UUID", len(msgs))
		}),

	orchmsgCheck("format/message-type", "happy-path", conform.Core, conform.MUST, "orchmsg §Message Types",
		"Agent → Orchestrator messages are one of the request:* and event:* types the protocol defines.",
		[]string{"ORCH-TYPE-", "ORCH-SEQ-006"},
		func(s *conform.Session) conform.Outcome {
			msgs := orchmsgMsgs(s)
			if len(msgs) == 0 {
				return conform.Failf("the agent sent no protocol message")
			}
			for _, r := range msgs {
				if !spec.IsAgentType(r.Key) {
					o := conform.Mismatch(fmt.Sprintf("record %d has type %q", r.Seq, r.Key), "request:query-agents|query-tasks|submit-task|get-task|ask-user or event:progress|log|error|question", r.Key)
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("every message type is known")
		}),

	orchmsgCheck("correlation/unique-ids", "happy-path", conform.Core, conform.MUST, "orchmsg §Correlation",
		"Each request gets unique UUID.",
		[]string{"ORCH-SEQ-003"},
		func(s *conform.Session) conform.Outcome {
			seen := map[string]int{}
			n := 0
			for _, r := range orchmsgMsgs(s) {
				id, _ := field(decode(r.Msg), "id").(string)
				if id == "" {
					continue
				}
				n++
				if prev, dup := seen[id]; dup {
					o := conform.Mismatch(fmt.Sprintf("id %q is used by records %d and %d", id, prev, r.Seq), "a unique id per message", id+" twice")
					o.Seq = []int{prev, r.Seq}
					return o
				}
				seen[id] = r.Seq
			}
			if n == 0 {
				return conform.Failf("the agent sent no message with an id")
			}
			return conform.Passf("%d unique ids", n)
		}),

	orchmsgCheck("requests/payload", "happy-path", conform.Core, conform.MUST, "orchmsg §Supported Requests, §Supported Events",
		"Requests and events carry the payload their type defines (get-task: taskId; ask-user: question; submit-task: name; progress: taskId and progress 0..1; log: level and message; error: error).",
		[]string{"ORCH-PAYLOAD-", "ORCH-SCHEMA-001"},
		func(s *conform.Session) conform.Outcome {
			for _, r := range orchmsgMsgs(s) {
				m := decode(r.Msg)
				p, ok := field(m, "payload").(map[string]any)
				if !ok && r.Key != "request:query-agents" && r.Key != "request:query-tasks" {
					if spec.IsAgentType(r.Key) {
						o := conform.Mismatch(fmt.Sprintf("record %d (%s) has no payload object", r.Seq, r.Key), "a payload object", "none")
						o.Seq = []int{r.Seq}
						return o
					}
					continue
				}
				var problem string
				switch r.Key {
				case "request:get-task":
					if str(p, "taskId") == "" {
						problem = "payload.taskId is required"
					}
				case "request:ask-user", "event:question":
					if str(p, "question") == "" {
						problem = "payload.question is required"
					}
				case "request:submit-task":
					if str(p, "name") == "" {
						problem = "payload.name is required"
					}
				case "event:progress":
					v, ok := num(p, "progress")
					if str(p, "taskId") == "" || !ok || v < 0 || v > 1 {
						problem = "payload.taskId and payload.progress (0..1) are required"
					}
				case "event:log":
					if l := str(p, "level"); (l != "info" && l != "warn" && l != "error") || str(p, "message") == "" {
						problem = "payload.level (info|warn|error) and payload.message are required"
					}
				case "event:error":
					if str(p, "error") == "" {
						problem = "payload.error is required"
					}
				}
				if problem != "" {
					o := conform.Mismatch(fmt.Sprintf("record %d (%s): %s", r.Seq, r.Key, problem), problem, conform.Clip(recordText(r), 300))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if len(orchmsgMsgs(s)) == 0 {
				return conform.Failf("the agent sent no protocol message")
			}
			return conform.Passf("payloads well-formed")
		}),

	orchmsgCheck("completion/reported", "happy-path", conform.Core, conform.MUST, "orchmsg §Progress Update; bindings §orchmsg",
		"The agent reports the outcome of its assigned task: event:progress with progress 1 (or event:error) for the taskId, before it exits.",
		nil,
		func(s *conform.Session) conform.Outcome {
			task := orchmsgTaskID(s)
			for _, r := range orchmsgMsgs(s) {
				if !orchmsgTaskOver(r, task) {
					continue
				}
				if r.Key == "event:error" {
					return conform.Outcome{Verdict: conform.Pass, Message: "the agent reported an error for its task", Seq: []int{r.Seq}}
				}
				return conform.Outcome{Verdict: conform.Pass, Message: "the agent reported its task complete", Seq: []int{r.Seq}}
			}
			a := s.Last()
			if a == nil {
				return conform.NotTestedf("the agent was never started")
			}
			return conform.Mismatch("the agent never reported the outcome of task "+task, "event:progress with progress 1 (or event:error) for "+task, describeAttempt(s, a))
		}),

	orchmsgCheck("shutdown/exit-within-grace", "cancellation", conform.Resilient, conform.MUST, "orchmsg §Shutdown; bindings §orchmsg",
		"notify:shutdown (payload gracePeriod in ms): after shutdown the agent exits within the grace period.",
		[]string{"ORCH-SEQ-007"},
		func(s *conform.Session) conform.Outcome {
			a := s.Last()
			if a == nil || a.ShutdownAt.IsZero() {
				return conform.NotTestedf("the agent ended before the shutdown notification")
			}
			took := a.End.Sub(a.ShutdownAt)
			// The grace period is timed once, by the engine: when it is over the
			// engine stops the agent (the harness's signal event, which aoplint's
			// ORCH-SEQ-007 reads too); an agent still running then failed.
			if !a.Terminated.IsZero() || !a.Killed.IsZero() {
				return conform.Mismatch("the agent did not exit within the grace period after notify:shutdown", fmt.Sprintf("exit within %s", a.ShutdownFor), fmt.Sprintf("%s; ran %s after shutdown", describeExit(a), took.Round(time.Millisecond))).Timed(took, a.ShutdownFor)
			}
			if a.Exit.Code != 0 {
				return conform.Mismatch("the agent exited non-zero after notify:shutdown", "exit 0", describeExit(a))
			}
			return conform.Passf("exited %s after notify:shutdown", took.Round(time.Millisecond))
		}),

	orchmsgCheck("cancel/stops-task", "cancellation", conform.Resilient, conform.MUST, "orchmsg §Task Cancelled",
		"notify:task-cancelled: the agent stops working on the task: no further progress or requests for it.",
		[]string{"ORCH-SEQ-009"},
		func(s *conform.Session) conform.Outcome {
			a := s.Last()
			if a == nil || a.CancelledAt.IsZero() {
				return conform.NotTestedf("the agent ended before the cancellation")
			}
			task := orchmsgTaskID(s)
			for _, r := range orchmsgMsgs(s) {
				if r.Time.Before(a.CancelledAt) && orchmsgTaskOver(r, task) {
					return conform.Outcome{Verdict: conform.NotApplicable, Message: fmt.Sprintf("not applicable: the agent reported the task done (record %d) before the cancellation", r.Seq), Seq: []int{r.Seq}}
				}
			}
			limit := a.CancelledAt.Add(slack(s, 300*time.Millisecond))
			for _, r := range orchmsgMsgs(s) {
				if r.Time.Before(limit) {
					continue
				}
				if (r.Key == "event:progress" && str(decode(r.Msg), "payload", "taskId") == task) || strings.HasPrefix(r.Key, "request:submit-task") {
					o := conform.Mismatch(fmt.Sprintf("record %d continues the cancelled task", r.Seq), "no progress or new work for "+task+" after notify:task-cancelled", conform.Clip(recordText(r), 200))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("no work on the task after the cancellation")
		}),

	orchmsgCheck("rate/limit", "rate-limiting", conform.Resilient, conform.MUST, "orchmsg §Security Considerations",
		"Rate Limiting: Prevent message flooding (100 msg/sec limit).",
		[]string{"ORCH-SEQ-005"},
		func(s *conform.Session) conform.Outcome {
			var rate spec.Rate[*conform.Record]
			n := 0
			for _, r := range s.AgentLines(0, "stdout") {
				if r.Msg == nil {
					continue
				}
				n++
				if over, first, _ := rate.Add(r.Time, r); over {
					o := conform.Mismatch(fmt.Sprintf("more than %d messages within one second", spec.RateLimit), fmt.Sprintf("at most %d messages per second", spec.RateLimit), fmt.Sprintf("%d messages between records %d and %d", spec.RateLimit+1, first.Seq, r.Seq))
					o.Seq = []int{first.Seq, r.Seq}
					return o
				}
			}
			if n == 0 {
				return vacuous()
			}
			return conform.Passf("%d messages within the rate limit", n)
		}),

	orchmsgCheck("correlation/responses-awaited", "timeouts", conform.Resilient, conform.MUST, "orchmsg §Timeouts, §Correlation",
		"Requests timeout after 30 seconds; the timeout handler cleans up pending requests: an unanswered request neither blocks notifications nor is re-sent under the same id.",
		nil,
		func(s *conform.Session) conform.Outcome {
			withheld := s.Events(conform.EventWithheld)
			if len(withheld) == 0 {
				return conform.NotTestedf("no request was withheld")
			}
			a := s.Last()
			if a.ShutdownAt.IsZero() {
				return conform.NotTestedf("the agent ended before the shutdown notification")
			}
			if !a.Terminated.IsZero() || !a.Killed.IsZero() {
				return conform.Mismatch("with a request pending, the agent did not act on notify:shutdown", "exit within the grace period while a request is unanswered", describeExit(a))
			}
			return conform.Passf("the agent handled shutdown while request(s) were pending")
		}),

	orchmsgCheck("format/json", "output-hygiene", conform.Core, conform.MUST, "orchmsg §Parsing Strategy",
		"If valid JSON with type field → route to MessageHandler: a stdout line that starts a JSON object is a complete JSON message with a type.",
		[]string{"GEN-JSON-001"},
		func(s *conform.Session) conform.Outcome {
			n := 0
			for _, r := range s.AgentLines(0, "stdout") {
				t := strings.TrimSpace(recordText(r))
				if !strings.HasPrefix(t, "{") {
					continue
				}
				n++
				if r.Msg == nil || r.Key == "" {
					o := conform.Mismatch(fmt.Sprintf("record %d starts a JSON object but is not a typed JSON message", r.Seq), "a complete JSON object with a type", conform.Clip(t, 200))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if n == 0 {
				return conform.Failf("the agent sent no JSON message")
			}
			return conform.Passf("%d JSON messages, all typed", n)
		}),

	orchmsgCheck("limit/message-size", "output-hygiene", conform.Full, conform.MUST, "orchmsg §Security Considerations; bindings §orchmsg",
		"One message is at most 1 MiB (larger lines are cut by the orchestrator and lost).",
		[]string{"GEN-SIZE-001"},
		func(s *conform.Session) conform.Outcome {
			for _, r := range s.AgentLines(0, "stdout") {
				if r.Truncated {
					o := conform.Mismatch(fmt.Sprintf("record %d is longer than 1 MiB", r.Seq), "at most 1 MiB per line", "cut at 1 MiB")
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if len(s.AgentLines(0, "stdout")) == 0 {
				return conform.Failf("the agent wrote nothing")
			}
			return conform.Passf("every line within 1 MiB")
		}),

	orchmsgCheck("auth/own-tasks", "delegation", conform.Resilient, conform.MUST, "orchmsg §Security Considerations",
		"Authorization: Agents can only query their own tasks (the assigned task and the tasks they submitted).",
		nil,
		func(s *conform.Session) conform.Outcome {
			own := map[string]bool{orchmsgTaskID(s): true}
			n := 0
			for _, r := range orchmsgMsgs(s) {
				switch r.Key {
				case "request:submit-task":
					// The tasks it submitted are its own, under the ids the
					// orchestrator answered with.
					if id := orchmsgSubmitted(s)[r.Seq]; id != "" {
						own[id] = true
					}
					continue
				case "request:get-task":
				default:
					continue
				}
				n++
				if id := str(decode(r.Msg), "payload", "taskId"); id != "" && !own[id] {
					o := conform.Mismatch(fmt.Sprintf("record %d asks for task %q, which is not the agent's", r.Seq, id), "the assigned task or a task the agent submitted", id)
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if n == 0 && len(orchmsgMsgs(s)) == 0 {
				return conform.Failf("the agent sent no protocol message")
			}
			return conform.Passf("%d get-task requests, all for the agent's own tasks", n)
		}),

	orchmsgCheck("delegation/depth", "delegation", conform.Resilient, conform.MUST, "orchmsg §Submit Task; aop2 §12 E_MAX_DEPTH_EXCEEDED (engine policy)",
		"Tasks the agent submits nest at most 3 deep (each submitted task depending on the previous one counts one level).",
		nil,
		func(s *conform.Session) conform.Outcome {
			depth := map[string]int{orchmsgTaskID(s): 0}
			ids := orchmsgSubmitted(s)
			subs := s.ByKey(0, "request:submit-task")
			deepest := 0
			for _, r := range subs {
				var deps []int
				if ds, ok := field(decode(r.Msg), "payload", "dependencies").([]any); ok {
					for _, dv := range ds {
						if d, ok := depth[fmt.Sprint(dv)]; ok {
							deps = append(deps, d)
						}
					}
				}
				d := spec.SubmittedDepth(0, deps...)
				if id := ids[r.Seq]; id != "" {
					depth[id] = d
				}
				deepest = max(deepest, d)
				if d > spec.MaxDelegationDepth {
					o := conform.Mismatch(fmt.Sprintf("the agent's submitted tasks nest deeper than %d levels", spec.MaxDelegationDepth), fmt.Sprintf("depth ≤ %d", spec.MaxDelegationDepth), fmt.Sprintf("depth %d at record %d", d, r.Seq))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if len(orchmsgMsgs(s)) == 0 {
				return conform.Failf("the agent sent no protocol message")
			}
			return conform.Passf("%d submitted tasks, depth %d", len(subs), deepest)
		}),
}

// orchmsgTaskOver reports whether an agent message says task is over (progress 1,
// or an unrecoverable event:error: lint/spec/orchmsg.CompletesTask).
func orchmsgTaskOver(r *conform.Record, task string) bool {
	m := decode(r.Msg)
	if str(m, "payload", "taskId") != task {
		return false
	}
	prog, hasProg := num(m, "payload", "progress")
	rec, hasRec := field(m, "payload", "recoverable").(bool)
	return spec.CompletesTask(r.Key, prog, hasProg, rec, hasRec)
}

// orchmsgSubmitted maps each request:submit-task (by record seq) to the id of the
// task the orchestrator's response:success created.
func orchmsgSubmitted(s *conform.Session) map[int]string {
	reqs := map[string]int{}
	for _, r := range s.ByKey(0, "request:submit-task") {
		if id, ok := field(decode(r.Msg), "id").(string); ok {
			if _, dup := reqs[id]; !dup {
				reqs[id] = r.Seq
			}
		}
	}
	ids := map[int]string{}
	for i := range s.Records {
		r := &s.Records[i]
		if r.From != conform.ActorOrchestrator || r.Msg == nil {
			continue
		}
		m := decode(r.Msg)
		if str(m, "type") != "response:success" {
			continue
		}
		if seq, ok := reqs[str(m, "correlationId")]; ok {
			if id := str(m, "payload", "task", "id"); id != "" {
				ids[seq] = id
			}
		}
	}
	return ids
}
