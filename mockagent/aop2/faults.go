package aop2

import "github.com/aopkit/aopkit/conform/fault"

// scriptReportFailure is not a fault (nothing is broken): a task script value that
// makes the agent report a FAILURE in a well-formed RESPONSE, to drive retries and
// fallbacks.
const scriptReportFailure = "report-failure"

// faults is the catalogue of the mock agent, each fault declared once below.
var faults fault.Catalogue

// The faults.
var (
	FaultBadExtensionKey         = faults.Add(fault.Fault{Name: "bad-extension-key", Rule: "AOP2-EXT-001 extensions keys start with x_ (§3)", Doc: "puts a key without the x_ prefix in the RESPONSE extensions"})
	FaultBadTimestamps           = faults.Add(fault.Fault{Name: "bad-timestamps", Rule: "AOP2-TIME-001 timestamps are ISO 8601 (§6)", Doc: "writes HEARTBEAT and PROGRESS_UPDATE timestamps as \"22/11/2026 10:00\""})
	FaultClobberSnapshot         = faults.Add(fault.Fault{Name: "clobber-snapshot", Rule: "aop2/7/snapshots-untouched rollback snapshots are the orchestrator's (§7)", Doc: "deletes the orchestrator's rollback snapshots, then reports FAILURE"})
	FaultCrashAfterPartialReport = faults.Add(fault.Fault{Name: "crash-after-partial-report", Rule: "GEN-JSON-001, AOP2-SEQ-004 one complete RESPONSE before exit (E_PROCESS_CRASH, §5, §12)", Doc: "writes the first half of its RESPONSE line, then exits 1"})
	FaultCrashMidTask            = faults.Add(fault.Fault{Name: "crash-mid-task", Rule: "AOP2-SEQ-004, aop2/5/final-response a RESPONSE, then exit 0 (E_PROCESS_CRASH, §12)", Doc: "exits 1 half-way through the work, without a RESPONSE"})
	FaultDuplicateResponse       = faults.Add(fault.Fault{Name: "duplicate-response", Rule: "AOP2-SEQ-009 one RESPONSE per TASK (§1.2, §5)", Doc: "writes its RESPONSE twice"})
	FaultEmptyReport             = faults.Add(fault.Fault{Name: "empty-report", Rule: "AOP2-SEQ-003 require_minimal_report: non-empty summary and actions (§5)", Doc: "sends an empty summary and no actions"})
	FaultExitNonzero             = faults.Add(fault.Fault{Name: "exit-nonzero", Rule: "aop2/bind/exit-zero one RESPONSE, then exit 0 (bindings)", Doc: "answers, then exits 1"})
	FaultExitNonzeroOnRetry      = faults.Add(fault.Fault{Name: "exit-nonzero-on-retry", Rule: "aop2/recovery/clean-restart a re-dispatched executor completes with one RESPONSE and exits 0 (§2.2 task.attempt, bindings)", Doc: "retried on its own model (task.attempt 2 or more, not as a fallback alternative), answers, then exits 1"})
	FaultExceedTimeout           = faults.Add(fault.Fault{Name: "exceed-timeout", Rule: "AOP2-SEQ-010 RESPONSE within the effective timeout (E_TIMEOUT, §11)", Doc: "heartbeats correctly but works 60 s past the effective timeout"})
	FaultHang                    = faults.Add(fault.Fault{Name: "hang", Rule: "AOP2-SEQ-005, AOP2-SEQ-010 heartbeats and a RESPONSE in time (§6.1, §11)", Doc: "reads the TASK, then writes nothing and never exits, ignoring EOF on stdin"})
	FaultIgnoreShutdown          = faults.Add(fault.Fault{Name: "ignore-shutdown", Rule: "aop2/bind/stop-on-sigterm stop on SIGTERM or EOF on stdin (bindings)", Doc: "ignores SIGTERM and EOF on stdin; only SIGKILL stops it"})
	FaultInvalidTransition       = faults.Add(fault.Fault{Name: "invalid-transition", Rule: "aop2/5/final-signal the RESPONSE state is terminal and fits final_signal (§5)", Doc: "reports state IN_PROGRESS with final_signal SUCCESS"})
	FaultLateHeartbeats          = faults.Add(fault.Fault{Name: "late-heartbeats", Rule: "AOP2-SEQ-006 heartbeat at its interval (§6.1)", Doc: "heartbeats every 1.75 intervals"})
	FaultMalformedJSON           = faults.Add(fault.Fault{Name: "malformed-json", Rule: "GEN-JSON-001 messages are JSON (E_PARSE_FAILURE, §1.3)", Doc: "writes its RESPONSE with a JSON syntax error"})
	FaultMissingFinalSignal      = faults.Add(fault.Fault{Name: "missing-final-signal", Rule: "AOP2-SEQ-002 require_final_signal: state and final_signal (§5)", Doc: "omits task_status.final_signal"})
	FaultNestedDelegation        = faults.Add(fault.Fault{Name: "nested-delegation", Rule: "AOP2-SEQ-011 delegation at most 3 levels deep (E_MAX_DEPTH_EXCEEDED, §10, §12)", Doc: "delegates sub-TASKs nested four levels deep through parent_task_id"})
	FaultNoCompletionReport      = faults.Add(fault.Fault{Name: "no-completion-report", Rule: "AOP2-SEQ-004 a TASK requiring a final signal gets a RESPONSE (§5)", Doc: "does the work and exits 0 without a RESPONSE"})
	FaultOverBudget              = faults.Add(fault.Fault{Name: "over-budget", Rule: "AOP2-SEQ-013 actual cost within the budget (E_COST_LIMIT_EXCEEDED, §12)", Doc: "reports an actual cost of twice the budget"})
	FaultOversizePayload         = faults.Add(fault.Fault{Name: "oversize-payload", Rule: "AOP2-LIMIT-003 RESPONSE at most 500KB (E_CONTEXT_OVERFLOW, §4)", Doc: "sends a RESPONSE of about 600KB"})
	FaultProgressFlood           = faults.Add(fault.Fault{Name: "progress-flood", Rule: "AOP2-SEQ-007 at most one PROGRESS_UPDATE per 30 s (§6.2)", Doc: "sends a PROGRESS_UPDATE every second"})
	FaultStaleArtifactHash       = faults.Add(fault.Fault{Name: "stale-artifact-hash", Rule: "aop2/5/artifacts-honest output_artifacts carry the files' real hash and size (§5)", Doc: "edits each output file once more after hashing it: output_artifacts report the hash and size of the earlier content"})
	FaultStaleRetryCount         = faults.Add(fault.Fault{Name: "stale-retry-count", Rule: "aop2/recovery/honest-attempt timing.retries_attempted counts the earlier attempts, task.attempt − 1 (§2.2, §5)", Doc: "ignores task.attempt: a re-dispatched run reports timing.retries_attempted 0"})
	FaultStdoutGarbage           = faults.Add(fault.Fault{Name: "stdout-garbage", Rule: "GEN-DETECT-002, aop2/bind/stdout-protocol-only stdout carries protocol messages (bindings)", Doc: "prints free text lines between its messages"})
	FaultStopHeartbeats          = faults.Add(fault.Fault{Name: "stop-heartbeats", Rule: "AOP2-SEQ-005 heartbeats until the RESPONSE (E_HEARTBEAT_FAILURE, §6.1)", Doc: "sends two heartbeats, then keeps working silently"})
	FaultSwappedTiming           = faults.Add(fault.Fault{Name: "swapped-timing", Rule: "AOP2-TIME-002 (aop2/lint/messages-valid) timing.completed_at is not before started_at (§5)", Doc: "swaps timing.started_at and timing.completed_at in its RESPONSE"})
	FaultV1Version               = faults.Add(fault.Fault{Name: "v1-version", Rule: "AOP2-VERSION-002 aop_version starts with \"2.\" (§1.1)", Doc: "answers with a RESPONSE whose aop_version is \"1.0\", the version of the v1 protocol"})
	FaultTaskStatusInTask        = faults.Add(fault.Fault{Name: "task-status-in-task", Rule: "AOP2-ENVELOPE-003 a TASK must not carry task_status (§1.2)", Doc: "delegates a sub-TASK that carries task_status"})
	FaultUnknownMessageType      = faults.Add(fault.Fault{Name: "unknown-message-type", Rule: "AOP2-ENVELOPE-001 message_type is TASK, RESPONSE or EVENT (§1.2)", Doc: "sends a message with message_type STATUS"})
	FaultWrongCorrelationID      = faults.Add(fault.Fault{Name: "wrong-correlation-id", Rule: "AOP2-SEQ-001 the RESPONSE task_id is the TASK's (§1.2)", Doc: "answers with a different task_id"})
	FaultWrongModel              = faults.Add(fault.Fault{Name: "wrong-model", Rule: "aop2/9/fallback-model the RESPONSE agent is the model it ran as (§9, bindings)", Doc: "reports a model other than target.model"})
	FaultWrongSessionID          = faults.Add(fault.Fault{Name: "wrong-session-id", Rule: "AOP2-SEQ-001 the RESPONSE session_id is the TASK's (§1.2)", Doc: "answers with a different session_id"})
)
