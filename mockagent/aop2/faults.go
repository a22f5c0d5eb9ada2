package aop2

import "github.com/aopkit/aopkit/mockagent"

// Fault names of the aop2 mock agent.
const (
	FaultHang                    = "hang"
	FaultExceedTimeout           = "exceed-timeout"
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
)

// scriptReportFailure is not a fault (nothing is broken): a task script value that
// makes the agent report a FAILURE in a well-formed RESPONSE, to drive retries and
// fallbacks.
const scriptReportFailure = "report-failure"

// Faults is the catalogue of the aop2 mock agent, sorted by name.
var Faults = []mockagent.Fault{
	{Name: FaultBadExtensionKey, Rule: "AOP2-SEM-EXTENSION-KEY extensions keys must start with x_ (§3)", Doc: "puts a key without the x_ prefix in the RESPONSE extensions"},
	{Name: FaultBadTimestamps, Rule: "AOP2-SEM-TIMESTAMP event timestamps must be ISO 8601 UTC (§6)", Doc: "writes HEARTBEAT and PROGRESS_UPDATE timestamps as \"22/11/2026 10:00\""},
	{Name: FaultClobberSnapshot, Rule: "AOP2-ROLLBACK-SNAPSHOT snapshots are orchestrator-owned (§7)", Doc: "deletes the orchestrator's rollback snapshots, then reports FAILURE"},
	{Name: FaultCrashAfterPartialReport, Rule: "AOP2-SEQ-ONE-RESPONSE one complete RESPONSE before exit (§1.2, bindings)", Doc: "writes the first half of its RESPONSE line, then exits 1"},
	{Name: FaultCrashMidTask, Rule: "aop2/bind/exit-code exit 0 after the RESPONSE (E_PROCESS_CRASH, §12)", Doc: "exits 1 half-way through the work, without a RESPONSE"},
	{Name: FaultDuplicateResponse, Rule: "AOP2-SEQ-ONE-RESPONSE exactly one RESPONSE per task (bindings)", Doc: "writes its RESPONSE twice"},
	{Name: FaultEmptyReport, Rule: "AOP2-GR-MINIMAL-REPORT require_minimal_report needs summary and actions (§5)", Doc: "sends an empty summary and no actions"},
	{Name: FaultExceedTimeout, Rule: "aop2/11/timeout finish within the effective timeout (§11)", Doc: "heartbeats correctly but works 60 s past the effective timeout"},
	{Name: FaultHang, Rule: "AOP2-SEQ-HEARTBEAT heartbeat at the interval (§6.1); aop2/11/timeout", Doc: "reads the TASK, then writes nothing and never exits, ignoring EOF on stdin"},
	{Name: FaultIgnoreShutdown, Rule: "aop2/bind/shutdown stop on SIGTERM or EOF on stdin (bindings)", Doc: "ignores SIGTERM and EOF on stdin; only SIGKILL stops it"},
	{Name: FaultInvalidTransition, Rule: "AOP2-SEM-FINAL-STATE a final RESPONSE carries a terminal state matching final_signal (§5)", Doc: "reports state IN_PROGRESS with final_signal SUCCESS"},
	{Name: FaultLateHeartbeats, Rule: "AOP2-SEQ-HEARTBEAT heartbeat at the interval (§6.1)", Doc: "heartbeats every 1.5 intervals"},
	{Name: FaultMalformedJSON, Rule: "AOP2-JSON-PARSE messages are JSON (E_PARSE_FAILURE, §1.3)", Doc: "writes its RESPONSE with a JSON syntax error"},
	{Name: FaultMissingFinalSignal, Rule: "AOP2-GR-FINAL-SIGNAL require_final_signal needs task_status.final_signal (§5)", Doc: "omits task_status.final_signal"},
	{Name: FaultNestedDelegation, Rule: "AOP2-SEQ-DELEGATION-DEPTH delegation depth at most 3 (E_MAX_DEPTH_EXCEEDED, §10, §12)", Doc: "delegates sub-TASKs nested four levels deep through parent_task_id"},
	{Name: FaultNoCompletionReport, Rule: "AOP2-SEQ-ONE-RESPONSE one RESPONSE before exit (bindings)", Doc: "does the work and exits 0 without a RESPONSE"},
	{Name: FaultOverBudget, Rule: "AOP2-SEM-BUDGET actual cost within task.budgets (E_COST_LIMIT_EXCEEDED, §12)", Doc: "reports an actual cost of twice the budget"},
	{Name: FaultOversizePayload, Rule: "AOP2-LIMIT-RESPONSE-SIZE RESPONSE at most 500KB (E_CONTEXT_OVERFLOW, §4)", Doc: "sends a RESPONSE of about 600KB"},
	{Name: FaultProgressFlood, Rule: "AOP2-SEQ-PROGRESS-RATE at most one PROGRESS_UPDATE per 30 s (§6.2)", Doc: "sends a PROGRESS_UPDATE every second"},
	{Name: FaultStdoutGarbage, Rule: "AOP2-STREAM-NON-JSON stdout carries protocol messages; other lines are logs (§1.3, bindings)", Doc: "prints free text lines between its messages"},
	{Name: FaultStopHeartbeats, Rule: "AOP2-SEQ-HEARTBEAT heartbeat at the interval (E_HEARTBEAT_FAILURE, §6.1)", Doc: "sends two heartbeats, then keeps working silently"},
	{Name: FaultTaskStatusInTask, Rule: "AOP2-SEM-TASK-STATUS a TASK must not contain task_status (§1.2)", Doc: "delegates a sub-TASK that carries task_status"},
	{Name: FaultUnknownMessageType, Rule: "AOP2-SEM-MESSAGE-TYPE message_type is TASK, RESPONSE or EVENT (§1.2)", Doc: "sends a message with message_type STATUS"},
	{Name: FaultWrongCorrelationID, Rule: "AOP2-SEM-TASK-ID the RESPONSE task_id is the TASK's (§1.2)", Doc: "answers with a different task_id"},
	{Name: FaultWrongModel, Rule: "AOP2-SEM-AGENT-MODEL the RESPONSE agent reports the model it ran as (bindings, §9)", Doc: "reports a model other than target.model"},
	{Name: FaultWrongSessionID, Rule: "AOP2-SEM-SESSION-ID the RESPONSE session_id is the TASK's (§1.2)", Doc: "answers with a different session_id"},
}
