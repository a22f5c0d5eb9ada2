package orchmsg

import "github.com/aopkit/aopkit/conform/fault"

// Fault names of the orchmsg mock agent.
const (
	FaultHang                    = "hang"
	FaultBlockOnRequest          = "block-on-request"
	FaultExceedTimeout           = "exceed-timeout"
	FaultStopHeartbeats          = "stop-heartbeats"
	FaultCrashMidTask            = "crash-mid-task"
	FaultCrashAfterPartialReport = "crash-after-partial-report"
	FaultMalformedJSON           = "malformed-json"
	FaultWrongCorrelationID      = "wrong-correlation-id"
	FaultDuplicateResponse       = "duplicate-response"
	FaultDuplicateID             = "duplicate-id"
	FaultNoCompletionReport      = "no-completion-report"
	FaultEmptyReport             = "empty-report"
	FaultNestedDelegation        = "nested-delegation"
	FaultRateFlood               = "rate-flood"
	FaultOversizePayload         = "oversize-payload"
	FaultIgnoreShutdown          = "ignore-shutdown"
	FaultIgnoreCancel            = "ignore-cancel"
	FaultBadTimestamps           = "bad-timestamps"
	FaultStdoutGarbage           = "stdout-garbage"
	FaultUnknownMessageType      = "unknown-message-type"
	FaultInvalidRequest          = "invalid-request"
	FaultWrongAgentID            = "wrong-agent-id"
	FaultForeignTask             = "foreign-task"
	FaultMissingID               = "missing-id"
	FaultCounterIDs              = "counter-ids"
	FaultExitNonzero             = "exit-nonzero"
	FaultDuplicateKey            = "duplicate-key"
)

// Faults is the catalogue of the orchmsg mock agent, sorted by name.
var Faults = []fault.Fault{
	{Name: FaultBadTimestamps, Rule: "ORCH-BASE-002 timestamp is ISO 8601 (Base Message Structure)", Doc: "writes timestamps as \"22/11/2026 10:00\""},
	{Name: FaultBlockOnRequest, Rule: "orchmsg/correlation/responses-awaited an unanswered request blocks no notification (Timeouts, Correlation)", Doc: "waits for the answer to each request without heeding notifications: a notify:shutdown while a request is unanswered goes unheeded"},
	{Name: FaultCounterIDs, Rule: "orchmsg/format/uuid-ids (ORCH-BASE-003) an id is a UUID for correlation (Base Message Structure)", Doc: "numbers its messages with a counter (\"evt-1\", \"req-2\") instead of UUIDs"},
	{Name: FaultCrashAfterPartialReport, Rule: "orchmsg/bind/exit-zero, orchmsg/format/json a complete report, then exit 0 on shutdown (bindings)", Doc: "writes half of its final progress event, then exits 1"},
	{Name: FaultCrashMidTask, Rule: "orchmsg/completion/reported, orchmsg/bind/exit-zero the outcome reported, exit 0 on shutdown, not before (bindings)", Doc: "exits 1 half-way through the task"},
	{Name: FaultDuplicateID, Rule: "ORCH-SEQ-003 every message id is unique (Correlation)", Doc: "sends two progress events with the same id"},
	{Name: FaultDuplicateKey, Rule: "GEN-JSON-002 (orchmsg/lint/messages-valid) member names within an object are unique (Message Format; RFC 8259 §4)", Doc: "writes its event:log lines with timestamp twice (the log template's own and the base field)"},
	{Name: FaultDuplicateResponse, Rule: "ORCH-SEQ-006 response:* goes orchestrator → agent only (Message Types)", Doc: "answers the task assignment with a response:success of its own"},
	{Name: FaultEmptyReport, Rule: "ORCH-SCHEMA-001 event:progress needs taskId and progress (Supported Events)", Doc: "sends its progress events with an empty payload"},
	{Name: FaultExceedTimeout, Rule: "orchmsg/completion/reported finish (report the outcome) before the orchestrator's deadline", Doc: "works for an hour, reporting progress"},
	{Name: FaultExitNonzero, Rule: "orchmsg/bind/exit-zero after notify:shutdown the agent exits 0 (bindings)", Doc: "does its work and stops when told, in time, but exits 1"},
	{Name: FaultForeignTask, Rule: "orchmsg/auth/own-tasks agents can only query their own tasks (Security Considerations)", Doc: "asks request:get-task for a task assigned to another agent"},
	{Name: FaultHang, Rule: "orchmsg/completion/reported, orchmsg/shutdown/exit-within-grace no outcome reported, no exit on notify:shutdown (Timeouts, Graceful Shutdown)", Doc: "after the assignment writes nothing and ignores every notification"},
	{Name: FaultIgnoreCancel, Rule: "orchmsg/cancel/stops-task no progress on a cancelled task (Orchestrator Notifications)", Doc: "keeps reporting progress after notify:task-cancelled"},
	{Name: FaultIgnoreShutdown, Rule: "orchmsg/shutdown/exit-within-grace exit within the shutdown grace period (Orchestrator Notifications, bindings)", Doc: "ignores notify:shutdown, SIGTERM and EOF on stdin"},
	{Name: FaultInvalidRequest, Rule: "ORCH-SCHEMA-001 request:get-task needs payload.taskId (Supported Requests)", Doc: "sends request:get-task without taskId"},
	{Name: FaultMalformedJSON, Rule: "orchmsg/format/json a line that starts a JSON object is one (Parsing Strategy)", Doc: "writes a progress event with a JSON syntax error"},
	{Name: FaultMissingID, Rule: "ORCH-BASE-001 every message has an id (Base Message Structure)", Doc: "sends its log events without id"},
	{Name: FaultNestedDelegation, Rule: "orchmsg/delegation/depth submitted tasks nest at most 3 deep (engine policy)", Doc: "submits a chain of four tasks, each depending on the previous one"},
	{Name: FaultNoCompletionReport, Rule: "orchmsg/completion/reported progress 1.0 when the task is done", Doc: "stops reporting before progress 1.0 and idles"},
	{Name: FaultOversizePayload, Rule: "orchmsg/limit/message-size one message at most 1 MiB (engine limit)", Doc: "sends an event:log of 1.5 MiB"},
	{Name: FaultRateFlood, Rule: "ORCH-SEQ-005 at most 100 messages per second (Security Considerations)", Doc: "sends 150 log events at once, then a request"},
	{Name: FaultStdoutGarbage, Rule: "GEN-DETECT-001 a JSON message has a type (Parsing Strategy)", Doc: "prints JSON values without type and plain text between its messages"},
	{Name: FaultStopHeartbeats, Rule: "orchmsg/completion/reported progress events keep the task alive until its outcome is reported (Timeouts)", Doc: "reports progress twice, then works on silently"},
	{Name: FaultUnknownMessageType, Rule: "ORCH-TYPE-001 type is a listed message type (INVALID_MESSAGE_TYPE)", Doc: "sends request:delete-task"},
	{Name: FaultWrongAgentID, Rule: "orchmsg/format/base-fields agentId is the agent's own (Base Message Structure)", Doc: "sets agentId to another agent's id"},
	{Name: FaultWrongCorrelationID, Rule: "ORCH-SEQ-003 each request gets a unique id (Correlation)", Doc: "sends request:query-tasks with the id of its previous request"},
}
