package orchmsg

import (
	"sort"

	"github.com/aopkit/aopkit/conform/fault"
)

// Faults of the reference engine: the orchestrator side misbehaving on purpose
// (harness.Config.EngineFault), so that orchestrator-side checks can be seen
// failing against the engine (issue 15).
const (
	// FaultWrongCorrelationID answers every request with a correlationId that is
	// not the request's id.
	FaultWrongCorrelationID = "wrong-correlation-id"
	// FaultNoShutdownGrace stops the agent (SIGTERM) right after notify:shutdown
	// instead of waiting for the grace period it announced.
	FaultNoShutdownGrace = "no-shutdown-grace"
	// FaultIgnoreRateLimit handles every message of a flood over 100 msg/s,
	// answering its requests, instead of rejecting the excess.
	FaultIgnoreRateLimit = "ignore-rate-limit"
	// FaultWrongTaskID assigns the task under another taskId than the one it
	// was given.
	FaultWrongTaskID = "wrong-task-id"
	// FaultSilentCancel cancels a task past its timeout without
	// notify:task-cancelled: it only shuts the agent down.
	FaultSilentCancel = "silent-cancel"
	// FaultInternalErrorCodes answers a get-task it cannot serve (no such task,
	// another agent's) with INTERNAL_ERROR, as forge does.
	FaultInternalErrorCodes = "internal-error-codes"
	// FaultIgnoreQueryFilters answers query-agents and query-tasks with every
	// agent and task, whatever the filters (forge ignores status).
	FaultIgnoreQueryFilters = "ignore-query-filters"
	// FaultNoRequestTimeout never times a question out: a request its user
	// leaves unanswered stays pending.
	FaultNoRequestTimeout = "no-request-timeout"
	// FaultUnknownTypeInvalidRequest answers a request of an unknown type with
	// INVALID_REQUEST instead of INVALID_MESSAGE_TYPE.
	FaultUnknownTypeInvalidRequest = "unknown-type-invalid-request"
	// FaultCannedAnswer answers every request:ask-user "yes", whatever options
	// the question offers, without asking its user.
	FaultCannedAnswer = "canned-answer"
	// FaultNoTimestamp sends its notifications without a timestamp.
	FaultNoTimestamp = "no-timestamp"
	// FaultParseChunks parses its agent's stdout per chunk, as the spec's
	// orchestrator sample does: a line that arrives in one read with the line
	// before it is lost with it (forge).
	FaultParseChunks = "parse-chunks"
	// FaultReuseIDs gives every message it sends the same id.
	FaultReuseIDs = "reuse-ids"
)

// Faults lists the engine's faults, sorted by name.
func Faults() []fault.Fault {
	fs := []fault.Fault{
		{Name: FaultIgnoreRateLimit, Doc: "handles every message of a flood over 100 msg/s and answers its requests (orchmsg §Security Considerations 3)",
			Fails: []string{"orchmsg/orch/rate/flood-rejected"}},
		{Name: FaultNoShutdownGrace, Doc: "sends SIGTERM right after notify:shutdown, ignoring the grace period it announced (§Orchestrator Notifications 3)",
			Fails: []string{"orchmsg/orch/shutdown/grace-honoured"}},
		{Name: FaultWrongCorrelationID, Doc: "answers requests with a correlationId that is not the request's id (§Correlation)",
			Fails: []string{"orchmsg/orch/corr/response-correlation", "orchmsg/orch/errors/foreign-task", "orchmsg/orch/errors/invalid-request", "orchmsg/orch/errors/timeout", "orchmsg/orch/parse/lines", "orchmsg/orch/shutdown/grace-honoured"}},
		{Name: FaultWrongTaskID, Doc: "sends notify:task-assigned with a taskId other than the task's (§Orchestrator Notifications 1)",
			Fails: []string{"orchmsg/orch/notify/task-assigned", "orchmsg/orch/shutdown/grace-honoured"}},
		{Name: FaultSilentCancel, Doc: "at the task's timeout shuts the agent down without notify:task-cancelled (§Orchestrator Notifications 2)",
			Fails: []string{"orchmsg/orch/notify/task-cancelled"}},
		{Name: FaultInternalErrorCodes, Doc: "answers get-task for a missing or another agent's task INTERNAL_ERROR, as forge (§Error Codes, §Security Considerations 2)",
			Fails: []string{"orchmsg/orch/errors/foreign-task", "orchmsg/orch/errors/not-found"}},
		{Name: FaultIgnoreQueryFilters, Doc: "answers query-agents and query-tasks ignoring their filters and the own-task rule, as forge ignores status (§Supported Requests 1, 2)",
			Fails: []string{"orchmsg/orch/resp/query-filters"}},
		{Name: FaultNoRequestTimeout, Doc: "never answers a question its user leaves unanswered: no TIMEOUT (§Timeouts, §Error Codes)",
			Fails: []string{"orchmsg/orch/corr/response-correlation", "orchmsg/orch/errors/timeout"}},
		{Name: FaultUnknownTypeInvalidRequest, Doc: "answers a request of an unknown type INVALID_REQUEST instead of INVALID_MESSAGE_TYPE (§Error Codes)",
			Fails: []string{"orchmsg/orch/errors/invalid-message-type"}},
		{Name: FaultCannedAnswer, Doc: "answers every request:ask-user \"yes\", never one of the options its question offers (§Supported Requests 5)",
			Fails: []string{"orchmsg/orch/ask-user/answered"}},
		{Name: FaultParseChunks, Doc: "parses its agent's stdout per chunk, not per line, as the spec's orchestrator sample: a request that arrives in one read with the line before it is lost (§Parsing Strategy)", Fails: []string{"orchmsg/orch/parse/lines"}},
		{Name: FaultReuseIDs, Doc: "gives every message it sends one and the same id, where each needs a fresh UUID (§Correlation, §Base Message Structure; aoplint ORCH-SEQ-003)", Fails: []string{"orchmsg/orch/lint/messages-valid"}},
		{Name: FaultNoTimestamp, Doc: "sends its notifications without a timestamp (§Base Message Structure)",
			Fails: []string{"orchmsg/orch/notify/task-assigned"}},
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	return fs
}
