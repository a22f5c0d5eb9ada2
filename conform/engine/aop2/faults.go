package aop2

import "github.com/aopkit/aopkit/conform/fault"

// faults are the engine's faults, each declared once below.
var faults fault.Catalogue

// Faults lists the aop2 engine's faults, sorted by name.
func Faults() []fault.Fault { return faults.List() }

// Engine faults: the orchestrator side misbehaving on purpose
// (harness.Config.EngineFault), so that checks of an orchestrator can be
// certified against a reference that is known to be wrong in one way.
var (
	FaultAssumeV2 = faults.Add(fault.Fault{Name: "assume-v2", Spec: "aop2 §1.3 (no aop_version: v1 detection, else UNSTRUCTURED)", Doc: "takes a TASK without aop_version as v2 and dispatches it as it is, instead of classifying it (E_PARSE_FAILURE)",
		Fails: []string{"aop2/orch/1.3/unversioned-not-v2", "aop2/orch/12/parse-failure-code"}})
	// The executor stops at the EOF: every check that needs a RESPONSE.
	FaultCloseStdinEarly = faults.Add(fault.Fault{Name: "close-stdin-early", Spec: "aop2 binding (stdin kept open; EOF means stop)", Doc: "closes the executor's stdin right after the TASK, which stops a conforming executor before its RESPONSE",
		Fails: []string{"aop2/orch/11/timeout-enforced", "aop2/orch/12/all-models-exhausted-code", "aop2/orch/12/heartbeat-failure-code", "aop2/orch/12/timeout-code", "aop2/orch/2.2/retried-then-fallback", "aop2/orch/6.1/heartbeat-failure-abort", "aop2/orch/9/fallback-by-trigger", "aop2/orch/bind/healthy-agent-completes"}})
	FaultIgnoreMissedBeats = faults.Add(fault.Fault{Name: "ignore-missed-heartbeats", Spec: "aop2 §6.1, §12 E_HEARTBEAT_FAILURE", Doc: "never declares a heartbeat failure, however long the executor stays silent",
		Fails: []string{"aop2/orch/6.1/heartbeat-failure-abort"}})
	FaultIgnoreHardLimits = faults.Add(fault.Fault{Name: "ignore-hard-limits", Spec: "aop2 §4 (HARD → reject with E_CONTEXT_OVERFLOW)", Doc: "dispatches a TASK over a HARD payload limit instead of rejecting it",
		Fails: []string{"aop2/orch/4/hard-limit-rejected"}})
	FaultNoBackoff = faults.Add(fault.Fault{Name: "no-backoff", Spec: "aop2 §2.2 retry_backoff_seconds", Doc: "retries a failed attempt at once, without waiting retry_backoff_seconds",
		Fails: []string{"aop2/orch/2.2/retry-backoff"}})
	FaultNoPayloadWarning = faults.Add(fault.Fault{Name: "no-payload-warning", Spec: "aop2 §4 (SOFT → emit E_PAYLOAD_SIZE_WARNING)", Doc: "dispatches a TASK over a SOFT payload limit without raising E_PAYLOAD_SIZE_WARNING",
		Fails: []string{"aop2/orch/4/soft-limit-warned"}})
	FaultNoRetries = faults.Add(fault.Fault{Name: "no-retries", Spec: "aop2 §2.2 max_retries, §9 ALL_ERRORS", Doc: "ignores max_retries: after a failed attempt an ALL_ERRORS alternative takes over at once, as FIRST_ERROR would",
		Fails: []string{"aop2/orch/2.2/retried-then-fallback"}})
	FaultNoRollbackEvent = faults.Add(fault.Fault{Name: "no-rollback-event", Spec: "aop2 §7", Doc: "restores the rollback snapshots but emits no ROLLBACK_INITIATED event",
		Fails: []string{"aop2/orch/7/rollback-event"}})
	FaultNoTimeoutKill = faults.Add(fault.Fault{Name: "no-timeout-kill", Spec: "aop2 §11 auto_terminate_on_timeout, §12 E_TIMEOUT", Doc: "raises E_TIMEOUT at the effective timeout but lets the executor run on, as if auto_terminate_on_timeout were false",
		Fails: []string{"aop2/orch/11/timeout-enforced", "aop2/orch/9/fallback-by-trigger"}})
	FaultOmitErrorCodes = faults.Add(fault.Fault{Name: "omit-error-codes", Spec: "aop2 §10, §12", Doc: "emits the SESSION_FINAL_REPORT with an empty errors list and no code as an attempt's outcome, whatever codes the session raised (E_TIMEOUT, E_HEARTBEAT_FAILURE, ...)",
		Fails: []string{"aop2/orch/12/all-models-exhausted-code", "aop2/orch/12/heartbeat-failure-code", "aop2/orch/12/parse-failure-code", "aop2/orch/12/rollback-failed-code", "aop2/orch/12/timeout-code", "aop2/orch/12/unknown-code", "aop2/orch/4/hard-limit-rejected", "aop2/orch/4/soft-limit-warned"}})
	FaultRejectUnknown = faults.Add(fault.Fault{Name: "reject-unknown-fields", Spec: "aop2 §1.1 (falling back conservatively if unknown fields appear)", Doc: "rejects a TASK with a member outside its schema (AOP2-ENVELOPE-007) with E_SCHEMA_VALIDATION, dispatching nothing",
		Fails: []string{"aop2/orch/1.1/unknown-fields-dispatched"}})
	FaultSkipRollback = faults.Add(fault.Fault{Name: "skip-rollback", Spec: "aop2 §7", Doc: "takes the rollback snapshots but never restores them after a failed or aborted task",
		Fails: []string{"aop2/orch/12/rollback-failed-code", "aop2/orch/7/rollback-restored"}})
	FaultSkipVersionFallback = faults.Add(fault.Fault{Name: "skip-version-fallback", Spec: "aop2 §1.3", Doc: "rejects a TASK that fails the v2 schema (E_SCHEMA_VALIDATION) without the VERSION_FALLBACK event and without dispatching the v1 prompt",
		Fails: []string{"aop2/orch/1.3/v1-prompt-dispatched", "aop2/orch/1.3/version-fallback-event"}})
	FaultStrictVersion = faults.Add(fault.Fault{Name: "strict-version", Spec: "aop2 §1.1 (accept any aop_version starting with 2.)", Doc: "accepts only its own aop_version 2.0.2-C: a TASK of another 2.x revision goes to the v1 fallback, a RESPONSE of another is malformed (E_MALFORMED_RESPONSE)",
		Fails: []string{"aop2/orch/1.1/accept-2x", "aop2/orch/1.2/task-dispatched"}})
	FaultTaskStatusInTask = faults.Add(fault.Fault{Name: "task-status-in-task", Spec: "aop2 §1.2 (TASK MUST NOT contain task_status)", Doc: "dispatches the TASK with a task_status member",
		Fails: []string{"aop2/orch/1.2/task-dispatched"}})
	FaultWrongFallbackModel = faults.Add(fault.Fault{Name: "wrong-fallback-model", Spec: "aop2 §9", Doc: "re-dispatches a fallback under the target's model instead of the alternative's",
		Fails: []string{"aop2/orch/2.2/retried-then-fallback", "aop2/orch/9/fallback-by-trigger"}})
)
