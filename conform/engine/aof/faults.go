package aof

import "github.com/aopkit/aopkit/conform/fault"

// faults are the engine's faults, each declared once below.
var faults fault.Catalogue

// Faults lists the engine's faults, sorted by name.
func Faults() []fault.Fault { return faults.List() }

// Engine faults: the scheduler and router misbehaving on purpose
// (harness.Config.EngineFault).
var (
	FaultReclaimTooEarly = faults.Add(fault.Fault{Name: "reclaim-too-early", Doc: "the scheduler reclaims an in-progress task when a quarter of its heartbeat's TTL has passed, before expiresAt",
		Fails: []string{"aof/orch/completion/transition", "aof/orch/resume/no-heartbeat-skipped", "aof/orch/resume/reclaim-after-expiry"}})
	FaultAllowNestedDelegation = faults.Add(fault.Fault{Name: "allow-nested-delegation", Doc: "the router accepts a handoff.request from a delegated child (delegation depth 2) instead of rejecting it as nested_delegation",
		Fails: []string{"aof/orch/handoff/nested-rejected"}})
	FaultNoRunJSON = faults.Add(fault.Fault{Name: "no-run-json", Doc: "the dispatcher acquires the lease without writing runs/<taskId>/run.json",
		Fails: []string{"aof/orch/lease/dispatched"}})
	FaultDoneSkipsReview = faults.Add(fault.Fault{Name: "done-skips-review", Doc: "a done outcome moves the task on to done although review is required (reviewRequired is not false)",
		Fails: []string{"aof/orch/completion/transition", "aof/orch/handoff/flow-logged"}})
	FaultBlindRequeue = faults.Add(fault.Fault{Name: "blind-requeue", Doc: "stale-heartbeat recovery never reads run_result.json: every stale task is reclaimed to ready (blind requeue)",
		Fails: []string{"aof/orch/resume/outcome-driven"}})
	FaultNoChildDispatch = faults.Add(fault.Fault{Name: "no-child-dispatch", Doc: "an accepted handoff.request writes the child's handoff, but the scheduler never dispatches the child task",
		Fails: []string{"aof/orch/handoff/child-dispatched"}})
	FaultAcceptInvalidReport = faults.Add(fault.Fault{Name: "accept-invalid-report", Doc: "a completion.report whose payload fails validation is recorded in run_result.json instead of rejected as invalid_envelope",
		Fails: []string{"aof/orch/envelope/invalid-rejected"}})
	FaultStatusNoWorkLog = faults.Add(fault.Fault{Name: "status-no-work-log", Doc: "a status.update that changes no status appends no work log entry to the task body",
		Fails: []string{"aof/orch/status/idempotent", "aof/orch/status/work-log"}})
	FaultInvalidTransitionLost = faults.Add(fault.Fault{Name: "invalid-transition-lost", Doc: "a status.update to a status the state machine forbids is dropped: no work log entry instead",
		Fails: []string{"aof/orch/status/invalid-transition"}})
	FaultStatusNeverApplied = faults.Add(fault.Fault{Name: "status-never-applied", Doc: "a status.update's status is never applied: the task stays where it is, only the work log grows",
		Fails: []string{"aof/orch/status/transition"}})
	FaultRepeatTransition = faults.Add(fault.Fault{Name: "repeat-transition", Doc: "a status.update to the status the task already has is logged as a transition again (task.transitioned)",
		Fails: []string{"aof/orch/status/idempotent"}})
	FaultUnknownAsRejected = faults.Add(fault.Fault{Name: "unknown-type-rejected", Doc: "a message of an unknown type is logged as protocol.message.rejected (invalid_envelope) instead of protocol.message.unknown",
		Fails: []string{"aof/orch/envelope/unknown-type"}})
	FaultSilentTaskNotFound = faults.Add(fault.Fault{Name: "silent-task-not-found", Doc: "a message for a task that does not exist is dropped without protocol.message.rejected task_not_found",
		Fails: []string{"aof/orch/envelope/task-not-found", "aof/orch/handoff/errors-rejected"}})
	FaultReopenDone = faults.Add(fault.Fault{Name: "reopen-done", Doc: "a completion.report for a task already done moves it back to review",
		Fails: []string{"aof/orch/completion/already-done"}})
	FaultAnySender = faults.Add(fault.Fault{Name: "any-sender", Doc: "an envelope from an agent other than the task's lease holder is routed like the holder's (no unauthorized_agent)",
		Fails: []string{"aof/orch/envelope/foreign-agent"}})
	FaultNoReceivedLog = faults.Add(fault.Fault{Name: "no-received-log", Doc: "valid messages are routed without a protocol.message.received event",
		Fails: []string{"aof/orch/log/received"}})
	FaultNoCompletedEvent = faults.Add(fault.Fault{Name: "no-task-completed-event", Doc: "a routed completion.report writes run_result.json but logs no task.completed event",
		Fails: []string{"aof/orch/completion/task-completed-event"}})
	FaultRunNotRunning = faults.Add(fault.Fault{Name: "run-status-leased", Doc: "the lease writes run.json with status \"leased\", not \"running\", for the live run",
		Fails: []string{"aof/orch/lease/run-live"}})
	FaultAcceptedBlocks = faults.Add(fault.Fault{Name: "accepted-blocks", Doc: "handoff.accepted is handled like handoff.rejected: the child task moves to blocked",
		Fails: []string{"aof/orch/handoff/flow-logged"}})
	FaultRejectedNotBlocked = faults.Add(fault.Fault{Name: "rejected-not-blocked", Doc: "handoff.rejected is logged (delegation.rejected) but the child task stays where it is",
		Fails: []string{"aof/orch/completion/transition", "aof/orch/handoff/rejected-blocked", "aof/orch/handoff/resent-once"}})
	FaultNoParentCheck = faults.Add(fault.Fault{Name: "no-parent-check", Doc: "a handoff.request whose parent task does not exist is accepted as from a top-level parent",
		Fails: []string{"aof/orch/handoff/errors-rejected"}})
	FaultStrictCriteria = faults.Add(fault.Fault{Name: "strict-criteria", Doc: "a handoff.request with invalid acceptance criteria is rejected as invalid_envelope instead of proceeding",
		Fails: []string{"aof/orch/handoff/invalid-criteria"}})
	FaultResendDelegatesAgain = faults.Add(fault.Fault{Name: "resend-delegates-again", Doc: "a re-sent handoff.request is processed as a new delegation (delegation.requested again)",
		Fails: []string{"aof/orch/handoff/resent-once"}})
	FaultReclaimNoHeartbeat = faults.Add(fault.Fault{Name: "reclaim-without-heartbeat", Doc: "an in-progress task without run_heartbeat.json counts as stale and is reclaimed to ready",
		Fails: []string{"aof/orch/resume/no-heartbeat-skipped"}})
)
