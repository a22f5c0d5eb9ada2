package orchmsg

import "github.com/aopkit/aopkit/conform/fault"

// faults are the engine's faults, each declared once below.
var faults fault.Catalogue

// Faults lists the engine's faults, sorted by name.
func Faults() []fault.Fault { return faults.List() }

// Faults of the reference engine: the orchestrator side misbehaving on purpose
// (harness.Config.EngineFault), so that orchestrator-side checks can be seen
// failing against the engine (issue 15).
var (
	FaultIgnoreRateLimit = faults.Add(fault.Fault{Name: "ignore-rate-limit", Doc: "handles every message of a flood over 100 msg/s and answers its requests (orchmsg §Security Considerations 3)",
		Fails: []string{"orchmsg/orch/rate/flood-rejected"}})
	FaultNoShutdownGrace = faults.Add(fault.Fault{Name: "no-shutdown-grace", Doc: "sends SIGTERM right after notify:shutdown, ignoring the grace period it announced (§Orchestrator Notifications 3)",
		Fails: []string{"orchmsg/orch/shutdown/grace-honoured"}})
	FaultWrongCorrelationID = faults.Add(fault.Fault{Name: "wrong-correlation-id", Doc: "answers requests with a correlationId that is not the request's id (§Correlation)",
		Fails: []string{"orchmsg/orch/corr/response-correlation", "orchmsg/orch/errors/foreign-task", "orchmsg/orch/errors/invalid-request", "orchmsg/orch/errors/timeout", "orchmsg/orch/parse/lines", "orchmsg/orch/shutdown/grace-honoured"}})
	FaultWrongTaskID = faults.Add(fault.Fault{Name: "wrong-task-id", Doc: "sends notify:task-assigned with a taskId other than the task's (§Orchestrator Notifications 1)",
		Fails: []string{"orchmsg/orch/notify/task-assigned", "orchmsg/orch/shutdown/grace-honoured"}})
	FaultSilentCancel = faults.Add(fault.Fault{Name: "silent-cancel", Doc: "at the task's timeout shuts the agent down without notify:task-cancelled (§Orchestrator Notifications 2)",
		Fails: []string{"orchmsg/orch/notify/task-cancelled"}})
	FaultInternalErrorCodes = faults.Add(fault.Fault{Name: "internal-error-codes", Doc: "answers get-task for a missing or another agent's task INTERNAL_ERROR, as forge (§Error Codes, §Security Considerations 2)",
		Fails: []string{"orchmsg/orch/errors/foreign-task", "orchmsg/orch/errors/not-found"}})
	FaultIgnoreQueryFilters = faults.Add(fault.Fault{Name: "ignore-query-filters", Doc: "answers query-agents and query-tasks ignoring their filters and the own-task rule, as forge ignores status (§Supported Requests 1, 2)",
		Fails: []string{"orchmsg/orch/resp/query-filters"}})
	FaultNoRequestTimeout = faults.Add(fault.Fault{Name: "no-request-timeout", Doc: "never answers a question its user leaves unanswered: no TIMEOUT (§Timeouts, §Error Codes)",
		Fails: []string{"orchmsg/orch/corr/response-correlation", "orchmsg/orch/errors/timeout"}})
	FaultUnknownTypeInvalidRequest = faults.Add(fault.Fault{Name: "unknown-type-invalid-request", Doc: "answers a request of an unknown type INVALID_REQUEST instead of INVALID_MESSAGE_TYPE (§Error Codes)",
		Fails: []string{"orchmsg/orch/errors/invalid-message-type"}})
	FaultCannedAnswer = faults.Add(fault.Fault{Name: "canned-answer", Doc: "answers every request:ask-user \"yes\", never one of the options its question offers (§Supported Requests 5)",
		Fails: []string{"orchmsg/orch/ask-user/answered"}})
	FaultParseChunks = faults.Add(fault.Fault{Name: "parse-chunks", Doc: "parses its agent's stdout per chunk, not per line, as the spec's orchestrator sample: a request that arrives in one read with the line before it is lost (§Parsing Strategy)", Fails: []string{"orchmsg/orch/parse/lines"}})
	FaultReuseIDs    = faults.Add(fault.Fault{Name: "reuse-ids", Doc: "gives every message it sends one and the same id, where each needs a fresh UUID (§Correlation, §Base Message Structure; aoplint ORCH-SEQ-003)", Fails: []string{"orchmsg/orch/lint/messages-valid"}})
	FaultNoTimestamp = faults.Add(fault.Fault{Name: "no-timestamp", Doc: "sends its notifications without a timestamp (§Base Message Structure)",
		Fails: []string{"orchmsg/orch/notify/task-assigned"}})
)
