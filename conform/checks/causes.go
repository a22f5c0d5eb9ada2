package checks

// rootCauses declares, for a check, the checks whose failure in the same scenario
// is a root cause of its own (conform.Check.After): the agent that stops its
// heartbeats is aborted, so it sends no RESPONSE and does not exit 0 by itself;
// those two are consequences, NOT-JUDGED under aop2/6.1/heartbeat-liveness. The
// causes point one way: from what the agent did wrong first (a broken stream,
// a missed deadline, a wrong id, a message aoplint rejects) to what it therefore
// never did (its completion, its clean exit, the scenario's later steps).
var rootCauses = map[string][]string{
	// aop2: liveness and the timeout stop the agent; without a RESPONSE there is
	// no clean exit and no clean restart.
	"aop2/5/final-response":         {"aop2/6.1/heartbeat-liveness", "aop2/11/finish-within-timeout", "aop2/6.2/progress-rate"},
	"aop2/bind/exit-zero":           {"aop2/6.1/heartbeat-liveness", "aop2/5/final-response"},
	"aop2/recovery/clean-restart":   {"aop2/6.1/heartbeat-liveness", "aop2/11/finish-within-timeout", "aop2/5/final-response", "aop2/bind/exit-zero"},
	"aop2/11/finish-within-timeout": {"aop2/6.2/progress-rate"},

	// aof: a stale or overdue agent is stopped before it reports; a task whose
	// envelopes are invalid or unreported never reaches a post-run status.
	"aof/completion/reported":          {"aof/lint/messages-valid", "aof/heartbeat/fresh", "aof/run/within-deadline", "aof/envelope/json", "aof/envelope/fields"},
	"aof/bind/exit-zero":               {"aof/heartbeat/fresh", "aof/run/within-deadline", "aof/completion/reported"},
	"aof/handoff/no-nested-delegation": {"aof/lint/messages-valid", "aof/heartbeat/fresh", "aof/run/within-deadline", "aof/completion/reported"},
	"aof/handoff/request-valid":        {"aof/heartbeat/fresh", "aof/run/within-deadline", "aof/completion/reported"},
	"aof/run/within-deadline":          {"aof/heartbeat/fresh"},
	"aof/bind/stdout-protocol-only":    {"aof/envelope/json"},
	"aof/resume/clean-start":           {"aof/lint/messages-valid", "aof/heartbeat/fresh", "aof/run/within-deadline", "aof/envelope/json", "aof/envelope/fields", "aof/envelope/task-and-sender", "aof/completion/reported", "aof/completion/payload", "aof/bind/exit-zero"},

	// aop-output: a report cut short is the cause of the missing exit.
	"aop-output/bind/exit-zero": {"aop-output/format/markers"},

	// orchmsg: the completion the scenario waits for never comes when the agent
	// broke the exchange before it.
	"orchmsg/completion/reported":        {"orchmsg/lint/messages-valid", "orchmsg/format/json", "orchmsg/format/base-fields", "orchmsg/format/message-type", "orchmsg/correlation/unique-ids", "orchmsg/auth/own-tasks", "orchmsg/rate/limit", "orchmsg/requests/payload", "orchmsg/cancel/stops-task", "orchmsg/limit/message-size"},
	"orchmsg/bind/exit-zero":             {"orchmsg/completion/reported"},
	"orchmsg/shutdown/exit-within-grace": {"orchmsg/completion/reported"},

	// aos: without a well-formed request the guardian decides nothing, so every
	// check of its decisions is a consequence.
	"aos/3.12.1/jsonrpc-request":     {"aos/2.2/content-type"},
	"aos/4.6/request-before-execute": {"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request"},
	"aos/4.6/result-after-execute":   {"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/4.6/request-before-execute", "aos/bind/all-tools-requested"},
	"aos/bind/all-tools-requested":   {"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/4.6/request-before-execute"},
	"aos/5.1/deny-enforced":          {"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/4.6/request-before-execute", "aos/bind/all-tools-requested"},
	"aos/5.1/modify-enforced":        {"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/4.6/request-before-execute", "aos/bind/all-tools-requested"},
	"aos/5.2/fail-closed":            {"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/bind/all-tools-requested"},
	"aos/4.5/message-params":         {"aos/bind/all-tools-requested"},
	"aos/bind/stdout-protocol-only":  {"aos/bind/all-tools-requested"},
	"aos/bind/exit-zero":             {"aos/4.6/result-after-execute"},
}
