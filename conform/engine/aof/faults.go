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
)

// Faults lists the engine's faults.
func Faults() []fault.Fault {
	return []fault.Fault{
		{Name: FaultReclaimTooEarly, Doc: "the scheduler reclaims an in-progress task when a quarter of its heartbeat's TTL has passed, before expiresAt"},
		{Name: FaultAllowNestedDelegation, Doc: "the router accepts a handoff.request from a delegated child (delegation depth 2) instead of rejecting it as nested_delegation"},
		{Name: FaultNoRunJSON, Doc: "the dispatcher acquires the lease without writing runs/<taskId>/run.json"},
		{Name: FaultDoneSkipsReview, Doc: "a done outcome moves the task on to done although review is required (reviewRequired is not false)"},
		{Name: FaultBlindRequeue, Doc: "stale-heartbeat recovery never reads run_result.json: every stale task is reclaimed to ready (blind requeue)"},
		{Name: FaultNoChildDispatch, Doc: "an accepted handoff.request writes the child's handoff, but the scheduler never dispatches the child task"},
		{Name: FaultAcceptInvalidReport, Doc: "a completion.report whose payload fails validation is recorded in run_result.json instead of rejected as invalid_envelope"},
	}
}
