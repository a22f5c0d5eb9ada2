package aof

// Fault is a misbehaviour the reference engine plays on purpose
// (harness.Config.EngineFault), for certifying orchestrator-side checks.
type Fault struct {
	Name string
	Doc  string
}

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
func Faults() []Fault {
	return []Fault{
		{FaultReclaimTooEarly, "the scheduler reclaims an in-progress task when a quarter of its heartbeat's TTL has passed, before expiresAt"},
		{FaultAllowNestedDelegation, "the router accepts a handoff.request from a delegated child (delegation depth 2) instead of rejecting it as nested_delegation"},
		{FaultNoRunJSON, "the dispatcher acquires the lease without writing runs/<taskId>/run.json"},
		{FaultDoneSkipsReview, "a done outcome moves the task on to done although review is required (reviewRequired is not false)"},
		{FaultBlindRequeue, "stale-heartbeat recovery never reads run_result.json: every stale task is reclaimed to ready (blind requeue)"},
		{FaultNoChildDispatch, "an accepted handoff.request writes the child's handoff, but the scheduler never dispatches the child task"},
		{FaultAcceptInvalidReport, "a completion.report whose payload fails validation is recorded in run_result.json instead of rejected as invalid_envelope"},
	}
}
