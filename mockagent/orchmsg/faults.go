package orchmsg

import "github.com/aopkit/aopkit/conform/fault"

// faults is the catalogue of the mock agent, each fault declared once below.
var faults fault.Catalogue

// The faults.
var (
	FaultBadTimestamps           = faults.Add(fault.Fault{Name: "bad-timestamps", Rule: "ORCH-BASE-002 timestamp is ISO 8601 (Base Message Structure)", Doc: "writes timestamps as \"22/11/2026 10:00\""})
	FaultBlockOnRequest          = faults.Add(fault.Fault{Name: "block-on-request", Rule: "orchmsg/correlation/responses-awaited an unanswered request blocks no notification (Timeouts, Correlation)", Doc: "waits for the answer to each request without heeding notifications: a notify:shutdown while a request is unanswered goes unheeded"})
	FaultCounterIDs              = faults.Add(fault.Fault{Name: "counter-ids", Rule: "orchmsg/format/uuid-ids (ORCH-BASE-003) an id is a UUID for correlation (Base Message Structure)", Doc: "numbers its messages with a counter (\"evt-1\", \"req-2\") instead of UUIDs"})
	FaultCrashAfterPartialReport = faults.Add(fault.Fault{Name: "crash-after-partial-report", Rule: "orchmsg/bind/exit-zero, orchmsg/format/json a complete report, then exit 0 on shutdown (bindings)", Doc: "writes half of its final progress event, then exits 1"})
	FaultCrashMidTask            = faults.Add(fault.Fault{Name: "crash-mid-task", Rule: "orchmsg/completion/reported, orchmsg/bind/exit-zero the outcome reported, exit 0 on shutdown, not before (bindings)", Doc: "exits 1 half-way through the task"})
	FaultDuplicateID             = faults.Add(fault.Fault{Name: "duplicate-id", Rule: "ORCH-SEQ-003 every message id is unique (Correlation)", Doc: "sends two progress events with the same id"})
	FaultDuplicateKey            = faults.Add(fault.Fault{Name: "duplicate-key", Rule: "GEN-JSON-002 (orchmsg/lint/messages-valid) member names within an object are unique (Message Format; RFC 8259 §4)", Doc: "writes its event:log lines with timestamp twice (the log template's own and the base field)"})
	FaultDuplicateResponse       = faults.Add(fault.Fault{Name: "duplicate-response", Rule: "ORCH-SEQ-006 response:* goes orchestrator → agent only (Message Types)", Doc: "answers the task assignment with a response:success of its own"})
	FaultEmptyReport             = faults.Add(fault.Fault{Name: "empty-report", Rule: "ORCH-SCHEMA-001 event:progress needs taskId and progress (Supported Events)", Doc: "sends its progress events with an empty payload"})
	FaultExceedTimeout           = faults.Add(fault.Fault{Name: "exceed-timeout", Rule: "orchmsg/completion/reported finish (report the outcome) before the orchestrator's deadline", Doc: "works for an hour, reporting progress"})
	FaultExitNonzero             = faults.Add(fault.Fault{Name: "exit-nonzero", Rule: "orchmsg/bind/exit-zero after notify:shutdown the agent exits 0 (bindings)", Doc: "does its work and stops when told, in time, but exits 1"})
	FaultForeignTask             = faults.Add(fault.Fault{Name: "foreign-task", Rule: "orchmsg/auth/own-tasks agents can only query their own tasks (Security Considerations)", Doc: "asks request:get-task for a task assigned to another agent"})
	FaultHang                    = faults.Add(fault.Fault{Name: "hang", Rule: "orchmsg/completion/reported, orchmsg/shutdown/exit-within-grace no outcome reported, no exit on notify:shutdown (Timeouts, Graceful Shutdown)", Doc: "after the assignment writes nothing and ignores every notification"})
	FaultIgnoreCancel            = faults.Add(fault.Fault{Name: "ignore-cancel", Rule: "orchmsg/cancel/stops-task no progress on a cancelled task (Orchestrator Notifications)", Doc: "keeps reporting progress after notify:task-cancelled"})
	FaultIgnoreShutdown          = faults.Add(fault.Fault{Name: "ignore-shutdown", Rule: "orchmsg/shutdown/exit-within-grace exit within the shutdown grace period (Orchestrator Notifications, bindings)", Doc: "ignores notify:shutdown, SIGTERM and EOF on stdin"})
	FaultInvalidRequest          = faults.Add(fault.Fault{Name: "invalid-request", Rule: "ORCH-SCHEMA-001 request:get-task needs payload.taskId (Supported Requests)", Doc: "sends request:get-task without taskId"})
	FaultMalformedJSON           = faults.Add(fault.Fault{Name: "malformed-json", Rule: "orchmsg/format/json a line that starts a JSON object is one (Parsing Strategy)", Doc: "writes a progress event with a JSON syntax error"})
	FaultMissingID               = faults.Add(fault.Fault{Name: "missing-id", Rule: "ORCH-BASE-001 every message has an id (Base Message Structure)", Doc: "sends its log events without id"})
	FaultNestedDelegation        = faults.Add(fault.Fault{Name: "nested-delegation", Rule: "orchmsg/delegation/depth submitted tasks nest at most 3 deep (engine policy)", Doc: "submits a chain of four tasks, each depending on the previous one"})
	FaultNoCompletionReport      = faults.Add(fault.Fault{Name: "no-completion-report", Rule: "orchmsg/completion/reported progress 1.0 when the task is done", Doc: "stops reporting before progress 1.0 and idles"})
	FaultOversizePayload         = faults.Add(fault.Fault{Name: "oversize-payload", Rule: "orchmsg/limit/message-size one message at most 1 MiB (engine limit)", Doc: "sends an event:log of 1.5 MiB"})
	FaultRateFlood               = faults.Add(fault.Fault{Name: "rate-flood", Rule: "ORCH-SEQ-005 at most 100 messages per second (Security Considerations)", Doc: "sends 150 log events at once, then a request"})
	FaultStdoutGarbage           = faults.Add(fault.Fault{Name: "stdout-garbage", Rule: "GEN-DETECT-001 a JSON message has a type (Parsing Strategy)", Doc: "prints JSON values without type and plain text between its messages"})
	FaultStopHeartbeats          = faults.Add(fault.Fault{Name: "stop-heartbeats", Rule: "orchmsg/completion/reported progress events keep the task alive until its outcome is reported (Timeouts)", Doc: "reports progress twice, then works on silently"})
	FaultUnknownMessageType      = faults.Add(fault.Fault{Name: "unknown-message-type", Rule: "ORCH-TYPE-001 type is a listed message type (INVALID_MESSAGE_TYPE)", Doc: "sends request:delete-task"})
	FaultWrongAgentID            = faults.Add(fault.Fault{Name: "wrong-agent-id", Rule: "orchmsg/format/base-fields agentId is the agent's own (Base Message Structure)", Doc: "sets agentId to another agent's id"})
	FaultWrongCorrelationID      = faults.Add(fault.Fault{Name: "wrong-correlation-id", Rule: "ORCH-SEQ-003 each request gets a unique id (Correlation)", Doc: "sends request:query-tasks with the id of its previous request"})
)
