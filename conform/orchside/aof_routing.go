package orchside

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aopkit/aopkit/conform"
	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// The aof checks of the router's handlers beyond the happy path: status.update
// routing, the handoff acknowledgements and error cases, the error events,
// idempotency, the sender, the live run. Each judges what the scheduler left in
// the data directory (the task files, run artifacts and events/*.jsonl, which only
// the scheduler writes) against the envelopes the agent sent, in order.
func init() { conform.Register(aofRoutingChecks...) }

var aofRoutingChecks = []*conform.Check{
	{
		ID: "aof/orch/status/work-log", Family: "status", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Message Types (status.update), §Status Update Protocol (Routing Behavior 2, Work Log Entry Format)",
		Requirement: "If no `status` (or status unchanged): Append work log entry to task body (if `progress`, `notes`, or `blockers` present). Work log format: `- <timestamp> Progress: ... | Notes: ... | Blockers: ...`",
		Requires:    []string{"aof/§message-types/status-handler", "aof/§routing-behavior/work-log", "aof/§routing-behavior/work-log-format"},
		Bad:         `the agent sends status.update {"progress":"Implemented core logic","notes":"ETA after credentials arrive"}; the task file's body has no work log entry for it, or one in another format ("[2026-11-22] progress=Implemented core logic")`,
		Good:        "the task body ends with `## Work Log` and `- 2026-11-22T10:00:01.250Z Progress: Implemented core logic | Notes: ETA after credentials arrive`",
		Run:         aofWorkLog,
	},
	{
		ID: "aof/orch/status/transition", Family: "status", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Status Update Protocol (Routing Behavior 1), Example 4",
		Requirement: "If `status` is provided: Validate transition with `isValidTransition(current, target)`; Transition task to target status; Build reason from `blockers` → `notes` → `progress` (first available); Log `task.transitioned` event.",
		Requires:    []string{"aof/§message-types/status-handler", "aof/§routing-behavior/transition", "aof/§routing-behavior/reason"},
		Bad:         `the agent sends status.update {"status":"blocked","blockers":["Awaiting API key"],"notes":"Cannot proceed"}; the task stays in tasks/in-progress/, or its task.transitioned event gives the reason "Cannot proceed" (notes before blockers)`,
		Good:        `the task moves to tasks/blocked/; events/*.jsonl: {"type":"task.transitioned","taskId":"<id>","payload":{"from":"in-progress","to":"blocked","reason":"Awaiting API key"}}`,
		Run:         aofStatusTransition,
	},
	{
		ID: "aof/orch/status/invalid-transition", Family: "status", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Status Update Protocol (Error Cases), §Conflict Resolution",
		Requirement: "Invalid transition | No transition; work log appended instead. `status.update` to invalid status | No transition; work log appended instead.",
		Requires:    []string{"aof/§status-update-protocol-error-cases/invalid-transition", "aof/§conflict-resolution/invalid-status"},
		Bad:         `an in-progress task gets status.update {"status":"done","progress":"Finished early"} (in-progress → done skips review); the scheduler moves it to tasks/done/, or drops the update without a work log entry`,
		Good:        "no task.transitioned to done; the task body gets `- <timestamp> Progress: Finished early | ...`",
		Run:         aofInvalidTransition,
	},
	{
		ID: "aof/orch/status/idempotent", Family: "status", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Validation, §Error Handling (Idempotency), §Status Update Protocol (Routing Behavior 2)",
		Requirement: "Protocol messages are idempotent by task state: if the task is already in the target status, the router performs no-op. If a task is already in the target status, no transition is applied. (If no status (or status unchanged): append work log entry.)",
		Requires:    []string{"aof/§validation/idempotent", "aof/§idempotency/target-status"},
		Bad:         `a blocked task gets status.update {"status":"blocked","notes":"Still blocked"}; the scheduler logs a second task.transitioned to blocked (reason "Still blocked"), or drops the notes`,
		Good:        "no new task.transitioned; the task body gets `- <timestamp> Notes: Still blocked`",
		Run:         aofStatusIdempotent,
	},
	{
		ID: "aof/orch/envelope/unknown-type", Family: "errors", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "aof-1 §Validation, §Error Handling (Validation Errors)",
		Requirement: "Unknown type → logged as `protocol.message.unknown`. Unknown message type | `protocol.message.unknown` | `type: <unknown-type>`.",
		Requires:    []string{"aof/§validation/unknown-type", "aof/§validation-errors/unknown-type"},
		Bad:         `the agent sends a valid envelope of type task.progress; the scheduler ignores it, or logs it as protocol.message.rejected`,
		Good:        `events/*.jsonl: {"type":"protocol.message.unknown","taskId":"<id>","payload":{"type":"task.progress"}}`,
		Run:         aofUnknownType,
	},
	{
		ID: "aof/orch/envelope/task-not-found", Family: "errors", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "aof-1 §Completion Protocol (Error Cases), §Status Update Protocol (Error Cases), §Error Handling (Validation Errors)",
		Requirement: "Task not found | Log `protocol.message.rejected` with reason `task_not_found`. (Nothing is written for the missing task.)",
		Requires:    []string{"aof/§completion-protocol-error-cases/task-not-found", "aof/§validation-errors/task-not-found", "aof/§status-update-protocol-error-cases/task-not-found"},
		Bad:         "the agent sends completion.report for a task no status directory holds; the scheduler writes runs/<that id>/run_result.json, or logs nothing",
		Good:        `events/*.jsonl: {"type":"protocol.message.rejected","taskId":"<missing id>","payload":{"reason":"task_not_found"}}; no runs/<missing id>/run_result.json, no task file`,
		Run:         aofTaskNotFound,
	},
	{
		ID: "aof/orch/completion/already-done", Family: "errors", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "aof-1 §Transition Logic, §Conflict Resolution",
		Requirement: "if (task.frontmatter.status === \"done\") return []; // Already done. `completion.report` while task is `done` | No-op (task already done).",
		Requires:    []string{"aof/§transition-logic/already-done", "aof/§conflict-resolution/completion-done"},
		Bad:         "the agent sends completion.report (done) for a task already in tasks/done/; the scheduler moves it back to review",
		Good:        "the task stays in tasks/done/ and no task.transitioned is logged for it",
		Run:         aofAlreadyDone,
	},
	{
		ID: "aof/orch/completion/task-completed-event", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Spec:        "aof-1 §How Agents Report Completion, §Lifecycle 4, §Logging",
		Requirement: "Agents send a `completion.report` message, which triggers the protocol router to: 1. Write `run_result.json` ... 2. Log `task.completed` event.",
		Requires:    []string{"aof/§how-agents-report-completion/task-completed-event"},
		Bad:         "the scheduler writes run_result.json from the agent's completion.report and moves the task, but events/*.jsonl has no task.completed",
		Good:        `events/*.jsonl: {"type":"task.completed","taskId":"<id>","actor":"swe-backend","payload":{"outcome":"done"}}`,
		Run:         aofCompletedEvent,
	},
	{
		ID: "aof/orch/envelope/foreign-agent", Family: "errors", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aof-1 §Envelope Fields (fromAgent), §Overview (predictable state transitions, audit trail); upstream router: unauthorized_agent",
		Requirement: "`fromAgent` | Sending agent ID. (aof-1 does not say what a router does with an envelope about a task leased to another agent; the upstream router rejects it, unauthorized_agent: it changes no state.)",
		Requires:    []string{"aof/§envelope-fields/from-agent-lease-holder"},
		Bad:         `the task is leased to swe-backend; an envelope from "impostor-agent" (status.update {"status":"blocked"}) moves it to blocked`,
		Good:        `the impostor's status.update changes nothing (no transition, no work log entry); events/*.jsonl: {"type":"protocol.message.rejected","payload":{"reason":"unauthorized_agent"}}`,
		Run:         aofForeignAgent,
	},
	{
		ID: "aof/orch/log/received", Family: "status", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aof-1 §Logging, §Overview (audit trail)",
		Requirement: "All protocol events are logged to `<dataDir>/events/`: `protocol.message.received` — valid message received.",
		Requires:    []string{"aof/§logging/received"},
		Bad:         "the scheduler routes five valid status.update envelopes and logs no protocol.message.received",
		Good:        `one {"type":"protocol.message.received","taskId":"<id>",...} per valid envelope the lease holder sent`,
		Run:         aofReceivedLogged,
	},
	{
		ID: "aof/orch/lease/run-live", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Spec:        "aof-1 §Artifacts 1 (run.json), §Overview (Dispatch)",
		Requirement: "run.json: Written when a lease is acquired (`acquireLease`) ... \"status\": \"running\". (As the agent finds it at its start: the run is live.)",
		Requires:    []string{"aof/§artifacts/run-json-running"},
		Bad:         `the agent starts and runs/<id>/run.json says "status": "leased"`,
		Good:        `at the agent's start runs/<id>/run.json says {"taskId":"<id>","agentId":"swe-backend","status":"running",...}`,
		Run:         aofRunLive,
	},
	{
		ID: "aof/orch/handoff/flow-logged", Family: "delegation", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Delegation Flow 4 and 7, §Message Types (handoff.accepted), §Handoff Acceptance/Rejection",
		Requirement: "Router logs delegation.requested. handoff.accepted: Logs `delegation.accepted`, no status transition.",
		Requires:    []string{"aof/§delegation-flow/requested-event", "aof/§message-types/handoff-accepted-handler", "aof/§handoff-acceptance-rejection/accepted-no-transition"},
		Bad:         "the child acknowledges its handoff with handoff.accepted; the scheduler moves the child to blocked, or logs no delegation.accepted (or no delegation.requested for the parent's request)",
		Good:        "events/*.jsonl: delegation.requested for the child, then delegation.accepted; the child ends where its own completion puts it (review)",
		Run:         aofFlowLogged,
	},
	{
		ID: "aof/orch/handoff/rejected-blocked", Family: "delegation", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Message Types (handoff.rejected), §Delegation Flow 7, §Handoff Acceptance/Rejection, Example 7",
		Requirement: "handoff.rejected: Transitions child task to `blocked`; Logs `task.transitioned` (child status → blocked); Logs `delegation.rejected` with reason.",
		Requires:    []string{"aof/§message-types/handoff-rejected-handler", "aof/§delegation-flow/rejected-blocked", "aof/§handoff-acceptance-rejection/rejected-transition"},
		Bad:         `a delegated child sends handoff.rejected {"reason":"Insufficient context"}; the scheduler logs delegation.rejected but leaves the child in progress (or reclaims it to ready)`,
		Good:        `the child moves to tasks/blocked/; events/*.jsonl: {"type":"delegation.rejected","taskId":"<child>","payload":{"reason":"Insufficient context"}}`,
		Run:         aofRejectedBlocked,
	},
	{
		ID: "aof/orch/handoff/errors-rejected", Family: "delegation", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Handoff Error Cases, §Conflict Resolution",
		Requirement: "Task not found | Log `protocol.message.rejected` + `delegation.rejected` with reason `task_not_found`. Parent task not found | Log `delegation.rejected` with reason `parent_not_found`. `taskId` mismatch (payload vs envelope) | Log `protocol.message.rejected` with reason `taskId_mismatch`. (None writes handoff artifacts.)",
		Requires:    []string{"aof/§handoff-error-cases/task-not-found", "aof/§handoff-error-cases/parent-not-found", "aof/§handoff-error-cases/task-id-mismatch"},
		Bad:         "a handoff.request names a parent task that does not exist; the scheduler writes the child's inputs/handoff.json as if from a top-level parent",
		Good:        `events/*.jsonl: {"type":"delegation.rejected","taskId":"<child>","payload":{"reason":"parent_not_found"}}; no handoff.json naming the missing parent`,
		Run:         aofHandoffErrors,
	},
	{
		ID: "aof/orch/handoff/invalid-criteria", Family: "delegation", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Handoff Error Cases",
		Requirement: "Invalid acceptance criteria | Handoff proceeds; schema error logged. (The schema error's event is not named by aof-1: only that the handoff proceeds is judged.)",
		Requires:    []string{"aof/§handoff-error-cases/invalid-criteria"},
		Bad:         `a handoff.request whose acceptanceCriteria is ["All tests pass", 42]; the scheduler rejects the whole request (invalid_envelope) and writes no handoff`,
		Good:        "the child gets inputs/handoff.json naming its parent and delegation.requested is logged (a schema error event beside it)",
		Run:         aofInvalidCriteria,
	},
	{
		ID: "aof/orch/handoff/resent-once", Family: "delegation", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Error Handling (Idempotency)",
		Requirement: "If a handoff is re-sent, the router writes the same artifacts (no duplicate delegation).",
		Requires:    []string{"aof/§idempotency/handoff-resent"},
		Bad:         "the agent sends the same handoff.request twice; the scheduler logs delegation.requested twice for the child, or dispatches it twice",
		Good:        "one delegation.requested for the child, its inputs/handoff.json as the request says, one launch on the child",
		Run:         aofResentOnce,
	},
	{
		ID: "aof/orch/resume/no-heartbeat-skipped", Family: "stale-recovery", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "aof-1 §Resume Protocol (Error Cases), §Stale Heartbeat Flow",
		Requirement: "Missing run artifacts | Treat as resumable; do not fail. Heartbeat missing | Skip stale evaluation (task may predate protocol).",
		Requires:    []string{"aof/§resume-protocol-error-cases/missing-artifacts", "aof/§resume-protocol-error-cases/heartbeat-missing"},
		Bad:         "the data directory holds an in-progress task with no runs/<id>/ (it predates the protocol); the scheduler reclaims it to ready as stale, or fails on it and never dispatches the ready task",
		Good:        "the old task stays in tasks/in-progress/ untouched (no run marked expired); the ready task is dispatched and completed as usual",
		Run:         aofNoHeartbeatSkipped,
	},
}

// aofValid are the envelopes of a launch the router routes (a known or unknown
// type, a valid envelope and payload), in order.
func aofValid(l *Launch) []aofMsg {
	return filter(aofOut(l), func(m aofMsg) bool { return engaof.EnvelopeProblem([]byte(m.e.Line)) == "" })
}

func (m aofMsg) from() string { return m.env.FromAgent.V }

// strs is a list of strings (nil when absent, empty, or not all strings).
func strs(l spec.Member[[]spec.Member[string]]) []string {
	var out []string
	for _, v := range l.V {
		if !v.OK {
			return nil
		}
		out = append(out, v.V)
	}
	return out
}

// statusStep is one status.update of the lease holder on its task, replayed on
// aof-1's state machine: what the router must do with it.
type statusStep struct {
	m        aofMsg
	from, to string // the task's status before it, the status it asks for ("" none)
	// kind: "log" (no status), "same" (the status the task has: idempotent),
	// "transition" (valid), "invalid" (the state machine forbids it).
	kind string
}

// reason is the transition reason the update carries (Routing Behavior 1).
func (st statusStep) reason() string {
	if b := strs(st.m.status().Blockers); len(b) > 0 {
		return b[0]
	}
	if n := st.m.status().Notes.V; n != "" {
		return n
	}
	return st.m.status().Progress.V
}

// entry is the work log entry the update must append (Work Log Entry Format):
// its parts in order; blockers, whose joining aof-1 does not fix, by their first.
func (st statusStep) entry() (text string, firstBlocker string) {
	var parts []string
	if p := st.m.status().Progress.V; p != "" {
		parts = append(parts, "Progress: "+p)
	}
	if n := st.m.status().Notes.V; n != "" {
		parts = append(parts, "Notes: "+n)
	}
	if b := strs(st.m.status().Blockers); len(b) > 0 {
		firstBlocker = b[0]
	}
	return strings.Join(parts, " | "), firstBlocker
}

// statusSteps replays the valid status.update envelopes of the lease holder on
// the given task from in-progress (where the lease put it), in order. Those of
// another agent count too when the scheduler let one change the task: aof-1 does
// not say it must refuse them (aof/orch/envelope/foreign-agent, a SHOULD, judges
// that), and the holder's updates are then judged from the state they met.
func (c *aofCommon) statusSteps(l *Launch) []statusStep {
	cur := spec.InProgress
	foreign, _ := c.foreignApplied(l)
	var out []statusStep
	for _, m := range aofValid(l) {
		if m.typ != spec.TypeStatusUpdate || m.taskID() != c.given.TaskID || m.from() != l.Env["AOF_AGENT_ID"] && foreign == nil {
			continue
		}
		st := statusStep{m: m, from: cur, to: m.status().Status.V}
		switch {
		case st.to == "":
			st.kind = "log"
		case st.to == cur:
			st.kind = "same"
		case spec.ValidTransition(cur, st.to):
			st.kind, cur = "transition", st.to
		default:
			st.kind = "invalid"
		}
		out = append(out, st)
	}
	return out
}

var workLogLine = regexp.MustCompile(`^- (\S+) (.*)$`)

// workLog are the task body's work log entries (the text after the timestamp),
// with whether the body has the "## Work Log" section; bad lists entries whose
// timestamp is no ISO 8601 date-time.
func workLog(t *AOFTask) (entries []string, section bool, bad []string) {
	if t.Task == nil {
		return nil, false, nil
	}
	in := false
	for _, line := range strings.Split(t.Task.Body, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, "#") {
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == "Work Log"
			section = section || in
			continue
		}
		m := workLogLine.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		if _, _, ok := spec.ParseTime(m[1]); !ok {
			bad = append(bad, line)
			continue
		}
		entries = append(entries, m[2])
	}
	return entries, section, bad
}

// hasEntry judges one update's work log entry among the task's: ok when an entry
// starts with its parts (and names its first blocker after "Blockers: ").
func hasEntry(entries []string, st statusStep) bool {
	text, blocker := st.entry()
	for _, e := range entries {
		if text != "" && !strings.HasPrefix(e, text) {
			continue
		}
		if blocker != "" && !strings.Contains(e, "Blockers: "+blocker) {
			continue
		}
		if text == "" && blocker == "" {
			continue
		}
		return true
	}
	return false
}

// entryMismatch is the failure for a missing work log entry.
func entryMismatch(what string, t *AOFTask, st statusStep) conform.Outcome {
	entries, section, bad := workLog(t)
	text, blocker := st.entry()
	want := "- <ISO 8601 timestamp> " + text
	if blocker != "" {
		want += " | Blockers: " + blocker + "..."
	}
	got := fmt.Sprintf("%d entries under ## Work Log: %q", len(entries), entries)
	switch {
	case t.Task == nil:
		got = "no readable task file"
	case !section:
		got = "no ## Work Log section in the task body"
	case len(bad) > 0:
		got += fmt.Sprintf("; without an ISO 8601 timestamp: %q", bad)
	}
	return conform.Mismatch(what, want, got).At(st.m.e.Seq)
}

// stepsOf are the replayed steps of one kind.
func stepsOf(steps []statusStep, kind string) []statusStep {
	return filter(steps, func(st statusStep) bool { return st.kind == kind })
}

// statusStart is aofFirst, the replayed status updates (all) and those of one
// kind (none: not tested, the scenario's cue failed).
func statusStart(s *conform.Session, kind, cue string) (c *aofCommon, all, steps []statusStep, bad *conform.Outcome) {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return nil, nil, nil, bad
	}
	all = c.statusSteps(l)
	steps = stepsOf(all, kind)
	if len(steps) == 0 {
		o := conform.NotTestedf("the agent sent no %s (the scenario's cue failed)", cue)
		return nil, nil, nil, &o
	}
	return c, all, steps, nil
}

func aofWorkLog(s *conform.Session) conform.Outcome {
	c, _, steps, bad := statusStart(s, "log", "status.update without a status")
	if bad != nil {
		return *bad
	}
	t := c.task(c.given.TaskID)
	entries, _, _ := workLog(t)
	for _, st := range steps {
		if !hasEntry(entries, st) {
			return entryMismatch("a status.update without a status got no work log entry in the task body (or not in the format)", t, st)
		}
	}
	return conform.Passf("%d progress update(s), each with its work log entry `- <timestamp> Progress: ... | Notes: ...`", len(steps)).At(steps[0].m.e.Seq)
}

// transitionsTo are the task.transitioned events of a task into status to (an
// event without payload.to counts when its reason is reason).
func (st *AOFState) transitionsTo(taskID, to, reason string) []AOFEvent {
	return filter(st.EventsOf("task.transitioned", taskID), func(e AOFEvent) bool {
		return e.Field("to") == to || e.Field("to") == "" && reason != "" && e.Reason == reason
	})
}

func aofStatusTransition(s *conform.Session) conform.Outcome {
	c, _, steps, bad := statusStart(s, "transition", "status.update with a valid target status")
	if bad != nil {
		return *bad
	}
	st := steps[0]
	t := c.task(c.given.TaskID)
	seq := []int{st.m.e.Seq}
	evs := c.state.transitionsTo(t.ID, st.to, st.reason())
	if len(evs) == 0 {
		return conform.Mismatch(fmt.Sprintf("status.update to %s was not applied: no task.transitioned %s → %s", st.to, st.from, st.to),
			fmt.Sprintf(`events/*.jsonl: {"type":"task.transitioned","taskId":"%s","payload":{"to":"%s","reason":"%s"}}; the task in tasks/%s/`, t.ID, st.to, st.reason(), st.to),
			fmt.Sprintf("the task ends in tasks/%s/, %d task.transitioned event(s) for it", t.Status(), len(c.state.EventsOf("task.transitioned", t.ID)))).At(seq...)
	}
	if r := evs[0].Reason; r != st.reason() {
		return conform.Mismatch("the transition's reason is not the update's first of blockers → notes → progress", `reason "`+st.reason()+`"`, `reason "`+r+`"`).At(seq...)
	}
	// The task is where the last routed step left it, unless its completion
	// moved it on.
	last := steps[len(steps)-1].to
	if !c.reportedOwn(c.firstLaunch()) && t.Status() != last {
		return conform.Mismatch("the task is not in the status the update transitioned it to", "tasks/"+last+"/", "tasks/"+t.Status()+"/").At(seq...)
	}
	return conform.Passf("status.update %s → %s applied, task.transitioned with reason %q", st.from, st.to, st.reason()).At(seq...)
}

// firstLaunch is the first launch on the given task (aofFirst found one).
func (c *aofCommon) firstLaunch() *Launch { return c.launchesOn(c.given.TaskID)[0] }

// reportedOwn reports whether the launch sent a valid completion.report on the
// given task (its transitions then move the task on).
func (c *aofCommon) reportedOwn(l *Launch) bool {
	for _, m := range aofValid(l) {
		if m.typ == spec.TypeCompletion && m.taskID() == c.given.TaskID {
			return true
		}
	}
	return false
}

func aofInvalidTransition(s *conform.Session) conform.Outcome {
	c, all, steps, bad := statusStart(s, "invalid", "status.update the state machine forbids")
	if bad != nil {
		return *bad
	}
	t := c.task(c.given.TaskID)
	entries, _, _ := workLog(t)
	for _, st := range steps {
		if evs := c.state.transitionsTo(t.ID, st.to, ""); len(evs) > allowedInto(all, st.to) || t.Status() == st.to && len(stepsTo(all, st.to)) == 0 {
			return conform.Mismatch(fmt.Sprintf("the invalid transition %s → %s was applied", st.from, st.to), "no transition (aof-1's state machine forbids it)",
				fmt.Sprintf("the task ends in tasks/%s/, %d task.transitioned to %s", t.Status(), len(evs), st.to)).At(st.m.e.Seq)
		}
		if !hasEntry(entries, st) {
			return entryMismatch(fmt.Sprintf("the invalid status.update (%s → %s) got no work log entry instead", st.from, st.to), t, st)
		}
	}
	return conform.Passf("%d invalid status.update(s) (%s → %s): no transition, a work log entry instead", len(steps), steps[0].from, steps[0].to).At(steps[0].m.e.Seq)
}

func aofStatusIdempotent(s *conform.Session) conform.Outcome {
	c, all, same, bad := statusStart(s, "same", "status.update naming the status the task has")
	if bad != nil {
		return *bad
	}
	t := c.task(c.given.TaskID)
	entries, _, _ := workLog(t)
	for _, st := range same {
		allowed := allowedInto(all, st.to)
		evs := c.state.transitionsTo(t.ID, st.to, "")
		byReason := 0
		for _, e := range c.state.EventsOf("task.transitioned", t.ID) {
			if e.Reason == st.reason() && !reasonOfStep(all, st.reason()) {
				byReason++
			}
		}
		if len(evs) > allowed || byReason > 0 {
			return conform.Mismatch(fmt.Sprintf("a status.update to the status the task already had (%s) was applied again", st.to), fmt.Sprintf("no-op: at most %d task.transitioned to %s", allowed, st.to),
				fmt.Sprintf("%d task.transitioned to %s (%d with this update's reason %q)", len(evs), st.to, byReason, st.reason())).At(st.m.e.Seq)
		}
		if !hasEntry(entries, st) {
			return entryMismatch(fmt.Sprintf("the update with status unchanged (%s) got no work log entry", st.to), t, st)
		}
	}
	return conform.Passf("%d status.update(s) to the status the task had: no transition, a work log entry each", len(same)).At(same[0].m.e.Seq)
}

// allowedInto is how many task.transitioned into status to the replayed steps
// explain: the steps that moved the task there, and the lease (ready →
// in-progress).
func allowedInto(steps []statusStep, to string) int {
	n := len(stepsTo(steps, to))
	if to == spec.InProgress {
		n++
	}
	return n
}

// stepsTo are the steps that moved the task into status to.
func stepsTo(steps []statusStep, to string) []statusStep {
	return filter(stepsOf(steps, "transition"), func(st statusStep) bool { return st.to == to })
}

// reasonOfStep reports whether a transition step carries that reason.
func reasonOfStep(steps []statusStep, reason string) bool {
	for _, st := range stepsOf(steps, "transition") {
		if st.reason() == reason {
			return true
		}
	}
	return false
}

// aofPick is aofFirst and the valid envelopes of the launch that keep selects
// (none: not tested, the agent sent no <cue>).
func aofPick(s *conform.Session, cue string, keep func(c *aofCommon, m aofMsg) bool) (*aofCommon, []aofMsg, *conform.Outcome) {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return nil, nil, bad
	}
	out := filter(aofValid(l), func(m aofMsg) bool { return keep(c, m) })
	if len(out) == 0 {
		o := conform.NotTestedf("the agent sent no %s (the scenario's cue failed)", cue)
		return nil, nil, &o
	}
	return c, out, nil
}

func aofUnknownType(s *conform.Session) conform.Outcome {
	c, unknown, bad := aofPick(s, "envelope of an unknown type", func(_ *aofCommon, m aofMsg) bool { return !spec.KnownType(m.typ) })
	if bad != nil {
		return *bad
	}
	for _, m := range unknown {
		found := false
		for _, e := range c.state.EventsOf("protocol.message.unknown", m.taskID()) {
			if e.Field("type") == m.typ || strings.Contains(e.Reason, m.typ) {
				found = true
			}
		}
		if !found {
			return conform.Mismatch("an envelope of unknown type "+m.typ+" was not logged as protocol.message.unknown",
				`events/*.jsonl: {"type":"protocol.message.unknown","taskId":"`+m.taskID()+`","payload":{"type":"`+m.typ+`"}} (or reason "type: `+m.typ+`")`,
				fmt.Sprintf("%d protocol.message.unknown event(s) naming it: none", len(c.state.EventsOf("protocol.message.unknown", m.taskID())))).At(m.e.Seq)
		}
	}
	return conform.Passf("%d envelope(s) of unknown type (%s) logged as protocol.message.unknown", len(unknown), unknown[0].typ).At(unknown[0].e.Seq)
}

// exists reports whether the data directory held the task, before or after.
func (c *aofCommon) exists(s *conform.Session, id string) bool {
	if c.state.Tasks[id] != nil && len(c.state.Tasks[id].Statuses) > 0 {
		return true
	}
	before := FactFilesBefore.Get(s)
	for rel := range before {
		if strings.HasSuffix(rel, "/"+id+".md") {
			return true
		}
	}
	return false
}

func aofTaskNotFound(s *conform.Session) conform.Outcome {
	c, missing, bad := aofPick(s, "completion.report or status.update for a missing task", func(c *aofCommon, m aofMsg) bool {
		return (m.typ == spec.TypeCompletion || m.typ == spec.TypeStatusUpdate) && !c.exists(s, m.taskID())
	})
	if bad != nil {
		return *bad
	}
	for _, m := range missing {
		seq := []int{m.e.Seq}
		if t := c.state.Tasks[m.taskID()]; t != nil && t.Result != nil {
			return conform.Mismatch("run_result.json was written for a task that does not exist", "no runs/"+m.taskID()+"/run_result.json", strings.TrimSpace(string(t.Result))).At(seq...)
		}
		if !c.state.HasEvent("protocol.message.rejected", engaof.ReasonTaskNotFound, m.taskID()) {
			return conform.Mismatch(m.typ+" for a missing task was not rejected as task_not_found",
				`events/*.jsonl: {"type":"protocol.message.rejected","taskId":"`+m.taskID()+`","payload":{"reason":"task_not_found"}}`, fmt.Sprintf("%d event(s), none of them", len(c.state.Events))).At(seq...)
		}
	}
	return conform.Passf("%d envelope(s) for missing tasks rejected as task_not_found, nothing written for them", len(missing)).At(missing[0].e.Seq)
}

// seededIn reports whether the scenario seeded task id in tasks/<status>/.
func seededIn(s *conform.Session, status, id string) bool {
	before := FactFilesBefore.Get(s)
	for rel := range before {
		if strings.HasSuffix(rel, "tasks/"+status+"/"+id+".md") {
			return true
		}
	}
	return false
}

func aofAlreadyDone(s *conform.Session) conform.Outcome {
	c, onDone, bad := aofPick(s, "completion.report for a task already done", func(_ *aofCommon, m aofMsg) bool {
		return m.typ == spec.TypeCompletion && seededIn(s, spec.Done, m.taskID())
	})
	if bad != nil {
		return *bad
	}
	for _, m := range onDone {
		t := c.task(m.taskID())
		evs := c.state.EventsOf("task.transitioned", t.ID)
		if t.Status() != spec.Done || len(evs) > 0 {
			return conform.Mismatch("a completion.report for a task already done was not a no-op", "the task stays in tasks/done/, no task.transitioned",
				fmt.Sprintf("the task ends in tasks/%s/, %d task.transitioned for it", t.Status(), len(evs))).At(m.e.Seq)
		}
	}
	return conform.Passf("completion.report for done task %s: no-op, it stays done", onDone[0].taskID()).At(onDone[0].e.Seq)
}

// leaseHolder is who the task's launch ran as (the lease holder), "" when none
// of the launches ran on it.
func (c *aofCommon) leaseHolder(id string) string {
	if ls := c.launchesOn(id); len(ls) > 0 {
		return ls[0].Env["AOF_AGENT_ID"]
	}
	return ""
}

func aofCompletedEvent(s *conform.Session) conform.Outcome {
	c, bad := aofStart(s)
	if bad != nil {
		return *bad
	}
	n := 0
	var first *aofMsg
	for i := range c.ls {
		l := &c.ls[i]
		m := completionOf(l)
		id := l.Env["AOF_TASK_ID"]
		if m == nil || m.taskID() != id || m.from() != l.Env["AOF_AGENT_ID"] || c.task(id).Result == nil {
			continue
		}
		if first == nil {
			first = m
		}
		found := false
		for _, e := range c.state.EventsOf("task.completed", id) {
			found = found || e.TaskID == id
		}
		if !found {
			return conform.Mismatch("the routed completion.report logged no task.completed event", `events/*.jsonl: {"type":"task.completed","taskId":"`+id+`",...}`,
				fmt.Sprintf("run_result.json written; %d event(s), no task.completed for %s", len(c.state.Events), id)).At(m.e.Seq)
		}
		n++
	}
	if n == 0 {
		return conform.NotTestedf("no completion.report was routed (no run_result.json from the lease holder's report)")
	}
	return conform.Passf("%d routed completion.report(s), each with its task.completed event", n).At(first.e.Seq)
}

// foreignOf are the launch's valid envelopes about the given task from another
// agent than the lease holder.
func (c *aofCommon) foreignOf(l *Launch) []aofMsg {
	return filter(aofValid(l), func(m aofMsg) bool {
		return m.taskID() == c.given.TaskID && m.from() != l.Env["AOF_AGENT_ID"] && spec.KnownType(m.typ)
	})
}

// foreignApplied is the first envelope from another agent than the lease holder
// that changed the given task (a transition by it or with its reason, its work
// log entry, its run_result.json), with what it changed; nil when none did.
func (c *aofCommon) foreignApplied(l *Launch) (*aofMsg, string) {
	t := c.task(c.given.TaskID)
	entries, _, _ := workLog(t)
	for _, m := range c.foreignOf(l) {
		st := statusStep{m: m}
		for _, e := range c.state.EventsOf("task.transitioned", t.ID) {
			if e.Actor == m.from() || m.typ == spec.TypeStatusUpdate && st.reason() != "" && e.Reason == st.reason() {
				return &m, fmt.Sprintf("task.transitioned to %q by %q, reason %q", e.Field("to"), e.Actor, e.Reason)
			}
		}
		if m.typ == spec.TypeStatusUpdate && hasEntry(entries, st) {
			text, _ := st.entry()
			return &m, "its work log entry: " + text
		}
		if m.typ == spec.TypeCompletion && jsonField(t.Result, "agentId") == m.from() {
			return &m, "run_result.json: " + strings.TrimSpace(string(t.Result))
		}
	}
	return nil, ""
}

func aofForeignAgent(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	holder := l.Env["AOF_AGENT_ID"]
	foreign := c.foreignOf(l)
	if len(foreign) == 0 {
		return conform.NotTestedf("the agent sent no envelope as another agent than the lease holder (the scenario's cue failed)")
	}
	if m, what := c.foreignApplied(l); m != nil {
		return conform.Mismatch(fmt.Sprintf("%s from %s, not the lease holder %s, changed the task", m.typ, m.from(), holder), "no state change from an agent the task is not leased to (upstream: unauthorized_agent)", what).At(m.e.Seq)
	}
	return conform.Passf("%d envelope(s) from another agent than the lease holder %s changed nothing", len(foreign), holder).At(foreign[0].e.Seq)
}

func aofReceivedLogged(s *conform.Session) conform.Outcome {
	c, bad := aofStart(s)
	if bad != nil {
		return *bad
	}
	want := map[string]int{}
	total := 0
	var first *aofMsg
	for i := range c.ls {
		l := &c.ls[i]
		for _, m := range aofValid(l) {
			id := m.taskID()
			holder := c.leaseHolder(id)
			if !spec.KnownType(m.typ) || !c.exists(s, id) || holder != "" && m.from() != holder ||
				m.typ == spec.TypeHandoffRequest && m.handoff().TaskID.V != id {
				continue
			}
			if first == nil {
				first = &m
			}
			want[id]++
			total++
		}
	}
	if total == 0 {
		return conform.NotTestedf("the agent sent no valid envelope on an existing task")
	}
	for id, n := range want {
		if got := len(c.state.EventsOf("protocol.message.received", id)); got < n {
			return conform.Mismatch(fmt.Sprintf("valid messages on %s were not logged as received", id), fmt.Sprintf("%d protocol.message.received for %s (one per valid message)", n, id), fmt.Sprintf("%d", got)).At(first.e.Seq)
		}
	}
	return conform.Passf("%d valid message(s), each logged as protocol.message.received", total).At(first.e.Seq)
}

func aofRunLive(s *conform.Session) conform.Outcome {
	c, bad := aofStart(s)
	if bad != nil {
		return *bad
	}
	seen := 0
	for i := range c.ls {
		l := &c.ls[i]
		id := l.Env["AOF_TASK_ID"]
		run, ok := l.Files["run.json"]
		if !ok {
			// Not there yet at the agent's start: its live status was not seen
			// (a missing run.json is aof/orch/lease/dispatched's).
			continue
		}
		seen++
		if st := jsonField([]byte(run), "status"); st != "running" {
			return conform.Mismatch(fmt.Sprintf("launch %d (%s): run.json does not say the run is live", l.N, id), `"status": "running"`, fmt.Sprintf("status %q", st)).At(l.Seqs("stdout")...)
		}
	}
	if seen == 0 {
		return conform.NotTestedf("no agent found runs/<id>/run.json at its start: the live run's status was not seen")
	}
	return conform.Passf("%d launch(es), each finding run.json \"status\": \"running\" at its start", seen)
}

// acksOf are a launch's valid handoff acknowledgements of its own task.
func acksOf(l *Launch, typ string) []aofMsg {
	return filter(aofValid(l), func(m aofMsg) bool { return m.typ == typ && m.taskID() == l.Env["AOF_TASK_ID"] })
}

func aofFlowLogged(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	req := c.childRequest(l)
	if req == nil {
		return conform.NotTestedf("the agent sent no valid handoff.request for a child of %s (the scenario's cue failed)", c.given.TaskID)
	}
	child := req.taskID()
	if c.task(child).Handoff == nil {
		return conform.NotTestedf("the child %s got no handoff (judged by aof/orch/handoff/child-dispatched)", child)
	}
	if len(c.state.EventsOf("delegation.requested", child)) == 0 {
		return conform.Mismatch("the accepted handoff.request was not logged", `events/*.jsonl: {"type":"delegation.requested","taskId":"`+child+`",...}`, fmt.Sprintf("%d event(s), no delegation.requested for %s", len(c.state.Events), child)).At(req.e.Seq)
	}
	runs := c.launchesOn(child)
	if len(runs) == 0 {
		return conform.NotTestedf("the child was never dispatched (judged by aof/orch/handoff/child-dispatched)")
	}
	acks := acksOf(runs[0], spec.TypeHandoffAccepted)
	if len(acks) == 0 {
		return conform.NotTestedf("the child's agent sent no handoff.accepted (the scenario's cue failed)")
	}
	seq := []int{acks[0].e.Seq}
	if len(c.state.EventsOf("delegation.accepted", child)) == 0 {
		return conform.Mismatch("handoff.accepted was not logged", `events/*.jsonl: {"type":"delegation.accepted","taskId":"`+child+`"}`, fmt.Sprintf("%d event(s), no delegation.accepted for %s", len(c.state.Events), child)).At(seq...)
	}
	t := c.task(child)
	if m := completionOf(runs[0]); m != nil && t.Task != nil && t.Result != nil {
		if ex := runs[0].Exit(); ex != nil && ex.Code == 0 {
			want, path := expectedStatus(t.Task, m.outcome())
			if t.Status() != want {
				return conform.Mismatch("the child did not end where its own completion puts it: the acceptance moved it", path+" (handoff.accepted: no status transition)", "tasks/"+t.Status()+"/").At(seq...)
			}
		}
	}
	if t.Status() == spec.Blocked {
		return conform.Mismatch("the accepted handoff moved the child to blocked", "no status transition on handoff.accepted", "tasks/blocked/").At(seq...)
	}
	return conform.Passf("delegation.requested and delegation.accepted logged for %s; the acceptance moved nothing (the child ends %s)", child, t.Status()).At(seq...)
}

func aofRejectedBlocked(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	rej := acksOf(l, spec.TypeHandoffRejected)
	if len(rej) == 0 {
		return conform.NotTestedf("the delegated child sent no handoff.rejected (the scenario's cue failed)")
	}
	m := rej[0]
	seq := []int{m.e.Seq}
	t := c.task(m.taskID())
	if t.Status() != spec.Blocked {
		return conform.Mismatch("handoff.rejected did not move the child to blocked", "tasks/"+spec.Blocked+"/", "tasks/"+t.Status()+"/").At(seq...)
	}
	evs := c.state.EventsOf("delegation.rejected", t.ID)
	if len(evs) == 0 {
		return conform.Mismatch("handoff.rejected was not logged", `events/*.jsonl: {"type":"delegation.rejected","taskId":"`+t.ID+`","payload":{"reason":"`+m.ackReason()+`"}}`, fmt.Sprintf("%d event(s), no delegation.rejected for %s", len(c.state.Events), t.ID)).At(seq...)
	}
	if m.ackReason() != "" && evs[0].Reason == "" {
		return conform.Mismatch("delegation.rejected does not give the rejection's reason", `payload.reason "`+m.ackReason()+`"`, "no reason").At(seq...)
	}
	return conform.Passf("handoff.rejected: %s moved to blocked, delegation.rejected logged (reason %q)", t.ID, evs[0].Reason).At(seq...)
}

func aofHandoffErrors(s *conform.Session) conform.Outcome {
	c, refused, bad := aofPick(s, "handoff.request the router must refuse", func(c *aofCommon, m aofMsg) bool {
		return m.typ == spec.TypeHandoffRequest && c.refusal(s, m) != ""
	})
	if bad != nil {
		return *bad
	}
	for _, m := range refused {
		reason := c.refusal(s, m)
		id, seq := m.taskID(), []int{m.e.Seq}
		type want struct{ typ, id string }
		var wants []want
		switch reason {
		case engaof.ReasonTaskIDMismatch:
			wants = []want{{"protocol.message.rejected", ""}}
		case engaof.ReasonTaskNotFound:
			wants = []want{{"protocol.message.rejected", id}, {"delegation.rejected", id}}
		case engaof.ReasonParentNotFound:
			wants = []want{{"delegation.rejected", id}}
		}
		for _, w := range wants {
			if !c.state.HasEvent(w.typ, reason, w.id) {
				return conform.Mismatch(fmt.Sprintf("a handoff.request with %s was not logged as the spec says", reason),
					fmt.Sprintf(`events/*.jsonl: {"type":"%s","taskId":"%s","payload":{"reason":"%s"}}`, w.typ, id, reason), fmt.Sprintf("%d event(s), none of them", len(c.state.Events))).At(seq...)
			}
		}
		if h := c.task(id).Handoff; reason == engaof.ReasonParentNotFound && h != nil && handoffParent(h) == m.handoff().ParentTaskID.V {
			return conform.Mismatch("a handoff.request whose parent does not exist wrote handoff artifacts", "no inputs/handoff.json naming the missing parent "+m.handoff().ParentTaskID.V, "tasks/"+c.task(id).Status()+"/"+id+"/inputs/handoff.json: "+strings.TrimSpace(string(h))).At(seq...)
		}
	}
	return conform.Passf("%d refused handoff.request(s) (%s, ...) logged as the spec says, no handoff written from them", len(refused), c.refusal(s, refused[0])).At(refused[0].e.Seq)
}

// refusal is what aof-1 §Handoff Error Cases make of a valid handoff.request:
// taskId_mismatch, task_not_found, parent_not_found, or "" (it proceeds).
func (c *aofCommon) refusal(s *conform.Session, m aofMsg) string {
	switch {
	case m.handoff().TaskID.V != m.taskID():
		return engaof.ReasonTaskIDMismatch
	case !c.exists(s, m.taskID()):
		return engaof.ReasonTaskNotFound
	case !c.exists(s, m.handoff().ParentTaskID.V):
		return engaof.ReasonParentNotFound
	}
	return ""
}

// proceeds reports whether a handoff.request must proceed: nothing to refuse,
// from a top-level parent.
func (c *aofCommon) proceeds(s *conform.Session, m aofMsg) bool {
	p := c.task(m.handoff().ParentTaskID.V)
	return m.typ == spec.TypeHandoffRequest && c.refusal(s, m) == "" && (p.Task == nil || p.Task.DelegationDepth() == 0)
}

// badCriteria reports whether a request's acceptanceCriteria is present and not
// a list of strings.
func (m aofMsg) badCriteria() bool {
	ac := m.handoff().AcceptanceCriteria
	return ac.Has() && strs(ac) == nil && ac.AnyNumber() != nil && !(ac.OK && len(ac.V) == 0)
}

func aofInvalidCriteria(s *conform.Session) conform.Outcome {
	c, reqs, bad := aofPick(s, "handoff.request with invalid acceptance criteria", func(c *aofCommon, m aofMsg) bool {
		return m.badCriteria() && c.proceeds(s, m)
	})
	if bad != nil {
		return *bad
	}
	for _, m := range reqs {
		child, parent := m.taskID(), m.handoff().ParentTaskID.V
		t := c.task(child)
		if t.Handoff == nil || handoffParent(t.Handoff) != parent || len(c.state.EventsOf("delegation.requested", child)) == 0 {
			got := "no inputs/handoff.json"
			if t.Handoff != nil {
				got = strings.TrimSpace(string(t.Handoff))
			}
			return conform.Mismatch("a handoff.request with invalid acceptance criteria did not proceed", "the child's inputs/handoff.json naming parent "+parent+", and delegation.requested",
				fmt.Sprintf("%s; %d delegation.requested for %s", got, len(c.state.EventsOf("delegation.requested", child)), child)).At(m.e.Seq)
		}
	}
	return conform.Passf("handoff.request with invalid acceptance criteria for %s proceeded (handoff.json, delegation.requested)", reqs[0].taskID()).At(reqs[0].e.Seq)
}

func aofResentOnce(s *conform.Session) conform.Outcome {
	seen := map[string]bool{}
	c, again, bad := aofPick(s, "handoff.request twice", func(c *aofCommon, m aofMsg) bool {
		key := fmt.Sprint(m.env.Payload.V)
		dup := seen[key]
		seen[key] = true
		return c.proceeds(s, m) && dup
	})
	if bad != nil {
		return *bad
	}
	for _, m := range again {
		child := m.taskID()
		seq := []int{m.e.Seq}
		n := 0
		for _, e := range c.state.EventsOf("delegation.requested", child) {
			if p := e.Field("parentTaskId"); p == "" || p == m.handoff().ParentTaskID.V {
				n++
			}
		}
		if n == 0 && m.badCriteria() {
			return conform.NotJudgedf("aof/orch/handoff/invalid-criteria", "the request never proceeded (invalid acceptance criteria)")
		}
		if n != 1 {
			return conform.Mismatch("the re-sent handoff.request was not idempotent", "exactly one delegation.requested for "+child+" from parent "+m.handoff().ParentTaskID.V+" (no duplicate delegation)", fmt.Sprintf("%d", n)).At(seq...)
		}
		if t := c.task(child); t.Handoff == nil || handoffParent(t.Handoff) != m.handoff().ParentTaskID.V {
			return conform.Mismatch("the re-sent handoff did not leave the request's artifacts", "inputs/handoff.json naming parent "+m.handoff().ParentTaskID.V, strings.TrimSpace(string(t.Handoff))).At(seq...)
		}
		if runs := c.launchesOn(child); len(runs) > 1 {
			return conform.Mismatch("the child of the re-sent handoff was dispatched twice", "one launch on "+child, fmt.Sprintf("%d launches", len(runs))).At(seq...)
		}
	}
	return conform.Passf("handoff.request for %s sent twice: one delegation, the same artifacts", again[0].taskID()).At(again[0].e.Seq)
}

func aofNoHeartbeatSkipped(s *conform.Session) conform.Outcome {
	c, bad := aofStart(s)
	if bad != nil {
		return *bad
	}
	before := FactFilesBefore.Get(s)
	var old []string
	for rel := range before {
		dir, name := pathSplit(rel)
		id, ok := strings.CutSuffix(name, ".md")
		if !ok || !strings.HasSuffix(dir, "tasks/"+spec.InProgress) {
			continue
		}
		beat := false
		for _, runs := range aofRunRoots {
			_, seeded := before[strings.TrimSuffix(dir, "tasks/"+spec.InProgress)+runs+"/"+id+"/run_heartbeat.json"]
			beat = beat || seeded
		}
		if !beat {
			old = append(old, id)
		}
	}
	if len(old) == 0 {
		return conform.NotTestedf("the scenario seeds no in-progress task without a heartbeat")
	}
	for _, id := range old {
		t := c.task(id)
		if t.Status() != spec.InProgress || jsonField(t.Run, "status") == "expired" {
			return conform.Mismatch("an in-progress task without a heartbeat was evaluated as stale", "tasks/in-progress/"+id+".md untouched (Heartbeat missing: skip stale evaluation)",
				fmt.Sprintf("tasks/%s/, run.json status %q", t.Status(), jsonField(t.Run, "status")))
		}
	}
	if a := s.Last(); a != nil && a.Exited() && a.Exit.Code != 0 && a.Decided.IsZero() {
		return conform.Mismatch("the scheduler failed beside a task with missing run artifacts", "exit 0 (treat as resumable; do not fail)", fmt.Sprintf("exit %d", a.Exit.Code))
	}
	if got := c.task(c.given.TaskID).Status(); got == spec.InProgress || got == spec.Ready {
		return conform.Mismatch("the ready task was not run to its end beside the task with missing run artifacts", "the given task completed (review)", "tasks/"+got+"/")
	}
	return conform.Passf("%d in-progress task(s) without run artifacts left alone; the ready task was run", len(old))
}

// pathSplit is path.Split without the trailing slash.
func pathSplit(rel string) (dir, name string) {
	i := strings.LastIndex(rel, "/")
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}

// handoffParent is the parentTaskId an inputs/handoff.json names ("" when it
// names none).
func handoffParent(data []byte) string {
	h, _ := spec.DecodeHandoff(data)
	return h.ParentTaskID.V
}
