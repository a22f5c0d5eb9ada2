package aof

import "github.com/aopkit/aopkit/conform/fault"

// Engine faults.
const (
	FaultReclaimTooEarly       = "reclaim-too-early"
	FaultAllowNestedDelegation = "allow-nested-delegation"
	FaultNoRunJSON             = "no-run-json"
	FaultDoneSkipsReview       = "done-skips-review"
	FaultBlindRequeue          = "blind-requeue"
	FaultNoChildDispatch       = "no-child-dispatch"
	FaultAcceptInvalidReport   = "accept-invalid-report"
	FaultStatusNoWorkLog       = "status-no-work-log"
	FaultInvalidTransitionLost = "invalid-transition-lost"
	FaultStatusNeverApplied    = "status-never-applied"
	FaultRepeatTransition      = "repeat-transition"
	FaultUnknownAsRejected     = "unknown-type-rejected"
	FaultSilentTaskNotFound    = "silent-task-not-found"
	FaultReopenDone            = "reopen-done"
	FaultAnySender             = "any-sender"
	FaultNoReceivedLog         = "no-received-log"
	FaultNoCompletedEvent      = "no-task-completed-event"
	FaultRunNotRunning         = "run-status-leased"
	FaultAcceptedBlocks        = "accepted-blocks"
	FaultRejectedNotBlocked    = "rejected-not-blocked"
	FaultNoParentCheck         = "no-parent-check"
	FaultStrictCriteria        = "strict-criteria"
	FaultResendDelegatesAgain  = "resend-delegates-again"
	FaultReclaimNoHeartbeat    = "reclaim-without-heartbeat"
)

// Faults lists the engine's faults.
func Faults() []fault.Fault {
	return []fault.Fault{
		{Name: FaultReclaimTooEarly, Doc: "the scheduler reclaims an in-progress task when a quarter of its heartbeat's TTL has passed, before expiresAt",
			Fails: []string{"aof/orch/completion/transition", "aof/orch/resume/no-heartbeat-skipped", "aof/orch/resume/reclaim-after-expiry"}},
		{Name: FaultAllowNestedDelegation, Doc: "the router accepts a handoff.request from a delegated child (delegation depth 2) instead of rejecting it as nested_delegation",
			Fails: []string{"aof/orch/handoff/nested-rejected"}},
		{Name: FaultNoRunJSON, Doc: "the dispatcher acquires the lease without writing runs/<taskId>/run.json",
			Fails: []string{"aof/orch/lease/dispatched"}},
		{Name: FaultDoneSkipsReview, Doc: "a done outcome moves the task on to done although review is required (reviewRequired is not false)",
			Fails: []string{"aof/orch/completion/transition", "aof/orch/handoff/flow-logged"}},
		{Name: FaultBlindRequeue, Doc: "stale-heartbeat recovery never reads run_result.json: every stale task is reclaimed to ready (blind requeue)",
			Fails: []string{"aof/orch/resume/outcome-driven"}},
		{Name: FaultNoChildDispatch, Doc: "an accepted handoff.request writes the child's handoff, but the scheduler never dispatches the child task",
			Fails: []string{"aof/orch/handoff/child-dispatched"}},
		{Name: FaultAcceptInvalidReport, Doc: "a completion.report whose payload fails validation is recorded in run_result.json instead of rejected as invalid_envelope",
			Fails: []string{"aof/orch/envelope/invalid-rejected"}},
		{Name: FaultStatusNoWorkLog, Doc: "a status.update that changes no status appends no work log entry to the task body",
			Fails: []string{"aof/orch/status/idempotent", "aof/orch/status/work-log"}},
		{Name: FaultInvalidTransitionLost, Doc: "a status.update to a status the state machine forbids is dropped: no work log entry instead",
			Fails: []string{"aof/orch/status/invalid-transition"}},
		{Name: FaultStatusNeverApplied, Doc: "a status.update's status is never applied: the task stays where it is, only the work log grows",
			Fails: []string{"aof/orch/status/transition"}},
		{Name: FaultRepeatTransition, Doc: "a status.update to the status the task already has is logged as a transition again (task.transitioned)",
			Fails: []string{"aof/orch/status/idempotent"}},
		{Name: FaultUnknownAsRejected, Doc: "a message of an unknown type is logged as protocol.message.rejected (invalid_envelope) instead of protocol.message.unknown",
			Fails: []string{"aof/orch/envelope/unknown-type"}},
		{Name: FaultSilentTaskNotFound, Doc: "a message for a task that does not exist is dropped without protocol.message.rejected task_not_found",
			Fails: []string{"aof/orch/envelope/task-not-found", "aof/orch/handoff/errors-rejected"}},
		{Name: FaultReopenDone, Doc: "a completion.report for a task already done moves it back to review",
			Fails: []string{"aof/orch/completion/already-done"}},
		{Name: FaultAnySender, Doc: "an envelope from an agent other than the task's lease holder is routed like the holder's (no unauthorized_agent)",
			Fails: []string{"aof/orch/envelope/foreign-agent"}},
		{Name: FaultNoReceivedLog, Doc: "valid messages are routed without a protocol.message.received event",
			Fails: []string{"aof/orch/log/received"}},
		{Name: FaultNoCompletedEvent, Doc: "a routed completion.report writes run_result.json but logs no task.completed event",
			Fails: []string{"aof/orch/completion/task-completed-event"}},
		{Name: FaultRunNotRunning, Doc: "the lease writes run.json with status \"leased\", not \"running\", for the live run",
			Fails: []string{"aof/orch/lease/run-live"}},
		{Name: FaultAcceptedBlocks, Doc: "handoff.accepted is handled like handoff.rejected: the child task moves to blocked",
			Fails: []string{"aof/orch/handoff/flow-logged"}},
		{Name: FaultRejectedNotBlocked, Doc: "handoff.rejected is logged (delegation.rejected) but the child task stays where it is",
			Fails: []string{"aof/orch/completion/transition", "aof/orch/handoff/rejected-blocked", "aof/orch/handoff/resent-once"}},
		{Name: FaultNoParentCheck, Doc: "a handoff.request whose parent task does not exist is accepted as from a top-level parent",
			Fails: []string{"aof/orch/handoff/errors-rejected"}},
		{Name: FaultStrictCriteria, Doc: "a handoff.request with invalid acceptance criteria is rejected as invalid_envelope instead of proceeding",
			Fails: []string{"aof/orch/handoff/invalid-criteria"}},
		{Name: FaultResendDelegatesAgain, Doc: "a re-sent handoff.request is processed as a new delegation (delegation.requested again)",
			Fails: []string{"aof/orch/handoff/resent-once"}},
		{Name: FaultReclaimNoHeartbeat, Doc: "an in-progress task without run_heartbeat.json counts as stale and is reclaimed to ready",
			Fails: []string{"aof/orch/resume/no-heartbeat-skipped"}},
	}
}
