package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aofBindExitZero = exitZeroFor("aof", "The agent sends its envelopes on stdout and exits 0 when its session ends.",
	"aof/heartbeat/fresh", "aof/run/within-deadline", "aof/completion/reported")

var aofBindStdoutProtocolOnly = stdoutProtocolOnly(&conform.Check{
	ID:          "aof/bind/stdout-protocol-only",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "aof-1 §Message Detection; bindings §aof",
	Requirement: "The agent writes AOF envelopes on stdout, one per line, bare JSON or with the AOF/1 prefix; logs go to stderr.",
	After:       []string{"aof/envelope/json"},
}, func(r *conform.Record) bool { return r.Key != "" }, "aof/envelope/json")
