package aop2

import "github.com/aopkit/aopkit/conform/fault"

// Engine faults: the orchestrator side misbehaving on purpose
// (harness.Config.EngineFault), so that checks of an orchestrator can be
// certified against a reference that is known to be wrong in one way.
const (
	FaultNoTimeoutKill      = "no-timeout-kill"
	FaultIgnoreMissedBeats  = "ignore-missed-heartbeats"
	FaultWrongFallbackModel = "wrong-fallback-model"
	FaultSkipRollback       = "skip-rollback"
	// Faults of what the engine emits (§1.3, §7, §12).
	FaultSkipVersionFallback = "skip-version-fallback"
	FaultNoRollbackEvent     = "no-rollback-event"
	FaultOmitErrorCodes      = "omit-error-codes"
	// Faults of the dispatch (§1.2, the aop2 binding).
	FaultTaskStatusInTask = "task-status-in-task"
	FaultCloseStdinEarly  = "close-stdin-early"
)

// Faults lists the aop2 engine's faults, sorted by name.
func Faults() []fault.Fault {
	return []fault.Fault{
		{Name: FaultCloseStdinEarly, Spec: "aop2 binding (stdin kept open; EOF means stop)", Doc: "closes the executor's stdin right after the TASK, which stops a conforming executor before its RESPONSE"},
		{Name: FaultIgnoreMissedBeats, Spec: "aop2 §6.1, §12 E_HEARTBEAT_FAILURE", Doc: "never declares a heartbeat failure, however long the executor stays silent"},
		{Name: FaultNoRollbackEvent, Spec: "aop2 §7", Doc: "restores the rollback snapshots but emits no ROLLBACK_INITIATED event"},
		{Name: FaultNoTimeoutKill, Spec: "aop2 §11 auto_terminate_on_timeout, §12 E_TIMEOUT", Doc: "raises E_TIMEOUT at the effective timeout but lets the executor run on, as if auto_terminate_on_timeout were false"},
		{Name: FaultOmitErrorCodes, Spec: "aop2 §10, §12", Doc: "emits the SESSION_FINAL_REPORT with an empty errors list and no code as an attempt's outcome, whatever codes the session raised (E_TIMEOUT, E_HEARTBEAT_FAILURE, ...)"},
		{Name: FaultSkipRollback, Spec: "aop2 §7", Doc: "takes the rollback snapshots but never restores them after a failed or aborted task"},
		{Name: FaultSkipVersionFallback, Spec: "aop2 §1.3", Doc: "rejects a TASK that fails the v2 schema (E_SCHEMA_VALIDATION) without the VERSION_FALLBACK event and without dispatching the v1 prompt"},
		{Name: FaultTaskStatusInTask, Spec: "aop2 §1.2 (TASK MUST NOT contain task_status)", Doc: "dispatches the TASK with a task_status member"},
		{Name: FaultWrongFallbackModel, Spec: "aop2 §9", Doc: "re-dispatches a fallback under the target's model instead of the alternative's"},
	}
}

// LookupFault returns the engine fault named name, or nil.
func LookupFault(name string) *fault.Fault { return fault.Lookup(Faults(), name) }
