package orchmsg

import "github.com/aopkit/aopkit/mockagent"

// Fault names of the orchmsg mock agent.
const (
	FaultHang                    = "hang"
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
)

// Faults is the catalogue of the orchmsg mock agent, sorted by name.
var Faults = []mockagent.Fault{
	{Name: FaultBadTimestamps, Rule: "ORCH-SEM-TIMESTAMP timestamp is ISO 8601 (Base Message Structure)", Doc: "writes timestamps as \"22/11/2026 10:00\""},
	{Name: FaultCrashAfterPartialReport, Rule: "orchmsg/bind/exit-code exit 0 after shutdown (bindings); ORCH-JSON-PARSE", Doc: "writes half of its final progress event, then exits 1"},
	{Name: FaultCrashMidTask, Rule: "orchmsg/bind/exit-code exit 0 after shutdown (bindings)", Doc: "exits 1 half-way through the task"},
	{Name: FaultDuplicateID, Rule: "ORCH-SEQ-DUPLICATE-ID every message has a unique id (Correlation)", Doc: "sends two progress events with the same id"},
	{Name: FaultDuplicateResponse, Rule: "ORCH-SEM-DIRECTION response:* goes orchestrator → agent only (Message Types)", Doc: "answers the task assignment with a response:success of its own"},
	{Name: FaultEmptyReport, Rule: "ORCH-SCHEMA-PAYLOAD event:progress needs taskId and progress (Supported Events)", Doc: "sends its progress events with an empty payload"},
	{Name: FaultExceedTimeout, Rule: "orchmsg/task-timeout finish the task before the orchestrator's deadline", Doc: "works for an hour, reporting progress"},
	{Name: FaultForeignTask, Rule: "ORCH-AUTH-OWN-TASKS agents can only query their own tasks (Security Considerations)", Doc: "asks request:get-task for a task assigned to another agent"},
	{Name: FaultHang, Rule: "ORCH-SEQ-KEEPALIVE progress events keep the connection alive (Timeouts); orchmsg/bind/shutdown", Doc: "after the assignment writes nothing and ignores every notification"},
	{Name: FaultIgnoreCancel, Rule: "ORCH-SEQ-CANCEL no progress on a cancelled task (Orchestrator Notifications)", Doc: "keeps reporting progress after notify:task-cancelled"},
	{Name: FaultIgnoreShutdown, Rule: "ORCH-SEQ-SHUTDOWN exit within the shutdown grace period (Orchestrator Notifications, bindings)", Doc: "ignores notify:shutdown, SIGTERM and EOF on stdin"},
	{Name: FaultInvalidRequest, Rule: "ORCH-SCHEMA-PAYLOAD request:get-task needs payload.taskId (Supported Requests)", Doc: "sends request:get-task without taskId"},
	{Name: FaultMalformedJSON, Rule: "ORCH-JSON-PARSE a line that starts a JSON object must be one (Parsing Strategy)", Doc: "writes a progress event with a JSON syntax error"},
	{Name: FaultMissingID, Rule: "ORCH-SCHEMA-ID every message has an id (Base Message Structure)", Doc: "sends its log events without id"},
	{Name: FaultNestedDelegation, Rule: "ORCH-SEQ-DELEGATION-DEPTH submitted tasks nest at most 3 deep (engine policy)", Doc: "submits a chain of four tasks, each depending on the previous one"},
	{Name: FaultNoCompletionReport, Rule: "ORCH-SEQ-COMPLETION report progress 1.0 when the task is done", Doc: "stops reporting before progress 1.0 and idles"},
	{Name: FaultOversizePayload, Rule: "ORCH-LIMIT-SIZE one message at most 1 MiB (engine limit)", Doc: "sends an event:log of 1.5 MiB"},
	{Name: FaultRateFlood, Rule: "ORCH-SEQ-RATE-LIMIT at most 100 messages per second (Security Considerations)", Doc: "sends 150 log events at once, then a request"},
	{Name: FaultStdoutGarbage, Rule: "ORCH-SEM-TYPE-MISSING a JSON message has a type (Parsing Strategy)", Doc: "prints JSON values without type and plain text between its messages"},
	{Name: FaultStopHeartbeats, Rule: "ORCH-SEQ-KEEPALIVE progress events keep the connection alive (Timeouts)", Doc: "reports progress twice, then works on silently"},
	{Name: FaultUnknownMessageType, Rule: "ORCH-SEM-MESSAGE-TYPE type is one of the listed message types (INVALID_MESSAGE_TYPE)", Doc: "sends request:delete-task"},
	{Name: FaultWrongAgentID, Rule: "ORCH-SEM-AGENT-ID agentId is the agent's own (Base Message Structure)", Doc: "sets agentId to another agent's id"},
	{Name: FaultWrongCorrelationID, Rule: "ORCH-SEQ-CORRELATION each request gets a unique id (Correlation)", Doc: "sends request:query-tasks with the id of its previous request"},
}
