package aop2

import "github.com/aopkit/aopkit/conform/fault"

// Fault names of the aop2 mock agent.
const (
	FaultHang                    = "hang"
	FaultExceedTimeout           = "exceed-timeout"
	FaultExitNonzero             = "exit-nonzero"
	FaultExitNonzeroOnRetry      = "exit-nonzero-on-retry"
	FaultStopHeartbeats          = "stop-heartbeats"
	FaultLateHeartbeats          = "late-heartbeats"
	FaultCrashMidTask            = "crash-mid-task"
	FaultCrashAfterPartialReport = "crash-after-partial-report"
	FaultMalformedJSON           = "malformed-json"
	FaultWrongCorrelationID      = "wrong-correlation-id"
	FaultWrongSessionID          = "wrong-session-id"
	FaultWrongModel              = "wrong-model"
	FaultDuplicateResponse       = "duplicate-response"
	FaultMissingFinalSignal      = "missing-final-signal"
	FaultNoCompletionReport      = "no-completion-report"
	FaultEmptyReport             = "empty-report"
	FaultProgressFlood           = "progress-flood"
	FaultNestedDelegation        = "nested-delegation"
	FaultOversizePayload         = "oversize-payload"
	FaultIgnoreShutdown          = "ignore-shutdown"
	FaultBadTimestamps           = "bad-timestamps"
	FaultStdoutGarbage           = "stdout-garbage"
	FaultTaskStatusInTask        = "task-status-in-task"
	FaultBadExtensionKey         = "bad-extension-key"
	FaultUnknownMessageType      = "unknown-message-type"
	FaultInvalidTransition       = "invalid-transition"
	FaultOverBudget              = "over-budget"
	FaultClobberSnapshot         = "clobber-snapshot"
	FaultStaleArtifactHash       = "stale-artifact-hash"
	FaultStaleRetryCount         = "stale-retry-count"
	FaultSwappedTiming           = "swapped-timing"
	FaultV1Version               = "v1-version"
)

// scriptReportFailure is not a fault (nothing is broken): a task script value that
// makes the agent report a FAILURE in a well-formed RESPONSE, to drive retries and
// fallbacks.
const scriptReportFailure = "report-failure"

// Faults is the catalogue of the aop2 mock agent, sorted by name.
var Faults = []fault.Fault{
	{Name: FaultBadExtensionKey, Rule: "AOP2-EXT-001 extensions keys start with x_ (§3)", Doc: "puts a key without the x_ prefix in the RESPONSE extensions"},
	{Name: FaultBadTimestamps, Rule: "AOP2-TIME-001 timestamps are ISO 8601 (§6)", Doc: "writes HEARTBEAT and PROGRESS_UPDATE timestamps as \"22/11/2026 10:00\""},
	{Name: FaultClobberSnapshot, Rule: "aop2/7/snapshots-untouched rollback snapshots are the orchestrator's (§7)", Doc: "deletes the orchestrator's rollback snapshots, then reports FAILURE"},
	{Name: FaultCrashAfterPartialReport, Rule: "GEN-JSON-001, AOP2-SEQ-004 one complete RESPONSE before exit (E_PROCESS_CRASH, §5, §12)", Doc: "writes the first half of its RESPONSE line, then exits 1"},
	{Name: FaultCrashMidTask, Rule: "AOP2-SEQ-004, aop2/5/final-response a RESPONSE, then exit 0 (E_PROCESS_CRASH, §12)", Doc: "exits 1 half-way through the work, without a RESPONSE"},
	{Name: FaultDuplicateResponse, Rule: "AOP2-SEQ-009 one RESPONSE per TASK (§1.2, §5)", Doc: "writes its RESPONSE twice"},
	{Name: FaultEmptyReport, Rule: "AOP2-SEQ-003 require_minimal_report: non-empty summary and actions (§5)", Doc: "sends an empty summary and no actions"},
	{Name: FaultExitNonzero, Rule: "aop2/bind/exit-zero one RESPONSE, then exit 0 (bindings)", Doc: "answers, then exits 1"},
	{Name: FaultExitNonzeroOnRetry, Rule: "aop2/recovery/clean-restart a re-dispatched executor completes with one RESPONSE and exits 0 (§2.2 task.attempt, bindings)", Doc: "retried on its own model (task.attempt 2 or more, not as a fallback alternative), answers, then exits 1"},
	{Name: FaultExceedTimeout, Rule: "AOP2-SEQ-010 RESPONSE within the effective timeout (E_TIMEOUT, §11)", Doc: "heartbeats correctly but works 60 s past the effective timeout"},
	{Name: FaultHang, Rule: "AOP2-SEQ-005, AOP2-SEQ-010 heartbeats and a RESPONSE in time (§6.1, §11)", Doc: "reads the TASK, then writes nothing and never exits, ignoring EOF on stdin"},
	{Name: FaultIgnoreShutdown, Rule: "aop2/bind/stop-on-sigterm stop on SIGTERM or EOF on stdin (bindings)", Doc: "ignores SIGTERM and EOF on stdin; only SIGKILL stops it"},
	{Name: FaultInvalidTransition, Rule: "aop2/5/final-signal the RESPONSE state is terminal and fits final_signal (§5)", Doc: "reports state IN_PROGRESS with final_signal SUCCESS"},
	{Name: FaultLateHeartbeats, Rule: "AOP2-SEQ-006 heartbeat at its interval (§6.1)", Doc: "heartbeats every 1.75 intervals"},
	{Name: FaultMalformedJSON, Rule: "GEN-JSON-001 messages are JSON (E_PARSE_FAILURE, §1.3)", Doc: "writes its RESPONSE with a JSON syntax error"},
	{Name: FaultMissingFinalSignal, Rule: "AOP2-SEQ-002 require_final_signal: state and final_signal (§5)", Doc: "omits task_status.final_signal"},
	{Name: FaultNestedDelegation, Rule: "AOP2-SEQ-011 delegation at most 3 levels deep (E_MAX_DEPTH_EXCEEDED, §10, §12)", Doc: "delegates sub-TASKs nested four levels deep through parent_task_id"},
	{Name: FaultNoCompletionReport, Rule: "AOP2-SEQ-004 a TASK requiring a final signal gets a RESPONSE (§5)", Doc: "does the work and exits 0 without a RESPONSE"},
	{Name: FaultOverBudget, Rule: "AOP2-SEQ-013 actual cost within the budget (E_COST_LIMIT_EXCEEDED, §12)", Doc: "reports an actual cost of twice the budget"},
	{Name: FaultOversizePayload, Rule: "AOP2-LIMIT-003 RESPONSE at most 500KB (E_CONTEXT_OVERFLOW, §4)", Doc: "sends a RESPONSE of about 600KB"},
	{Name: FaultProgressFlood, Rule: "AOP2-SEQ-007 at most one PROGRESS_UPDATE per 30 s (§6.2)", Doc: "sends a PROGRESS_UPDATE every second"},
	{Name: FaultStaleArtifactHash, Rule: "aop2/5/artifacts-honest output_artifacts carry the files' real hash and size (§5)", Doc: "edits each output file once more after hashing it: output_artifacts report the hash and size of the earlier content"},
	{Name: FaultStaleRetryCount, Rule: "aop2/recovery/honest-attempt timing.retries_attempted counts the earlier attempts, task.attempt − 1 (§2.2, §5)", Doc: "ignores task.attempt: a re-dispatched run reports timing.retries_attempted 0"},
	{Name: FaultStdoutGarbage, Rule: "GEN-DETECT-002, aop2/bind/stdout-protocol-only stdout carries protocol messages (bindings)", Doc: "prints free text lines between its messages"},
	{Name: FaultStopHeartbeats, Rule: "AOP2-SEQ-005 heartbeats until the RESPONSE (E_HEARTBEAT_FAILURE, §6.1)", Doc: "sends two heartbeats, then keeps working silently"},
	{Name: FaultSwappedTiming, Rule: "AOP2-TIME-002 (aop2/lint/messages-valid) timing.completed_at is not before started_at (§5)", Doc: "swaps timing.started_at and timing.completed_at in its RESPONSE"},
	{Name: FaultV1Version, Rule: "AOP2-VERSION-002 aop_version starts with \"2.\" (§1.1)", Doc: "answers with a RESPONSE whose aop_version is \"1.0\", the version of the v1 protocol"},
	{Name: FaultTaskStatusInTask, Rule: "AOP2-ENVELOPE-003 a TASK must not carry task_status (§1.2)", Doc: "delegates a sub-TASK that carries task_status"},
	{Name: FaultUnknownMessageType, Rule: "AOP2-ENVELOPE-001 message_type is TASK, RESPONSE or EVENT (§1.2)", Doc: "sends a message with message_type STATUS"},
	{Name: FaultWrongCorrelationID, Rule: "AOP2-SEQ-001 the RESPONSE task_id is the TASK's (§1.2)", Doc: "answers with a different task_id"},
	{Name: FaultWrongModel, Rule: "aop2/9/fallback-model the RESPONSE agent is the model it ran as (§9, bindings)", Doc: "reports a model other than target.model"},
	{Name: FaultWrongSessionID, Rule: "AOP2-SEQ-001 the RESPONSE session_id is the TASK's (§1.2)", Doc: "answers with a different session_id"},
}
