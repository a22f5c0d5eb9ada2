package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var orchmsgBindExitZero = exitZero(&conform.Check{
	ID:          "orchmsg/bind/exit-zero",
	Protocol:    "orchmsg",
	Spec:        "bindings §orchmsg",
	Requirement: "After notify:shutdown (or when its work is done) the agent exits 0 by itself.",
	After:       []string{"orchmsg/completion/reported"},
	Timing:      true,
})

var orchmsgBindStopOnSIGTERM = stopOnSIGTERM(&conform.Check{
	ID:       "orchmsg/bind/stop-on-sigterm",
	Protocol: "orchmsg",
	Family:   "timeouts",
	Timing:   true,
})

var orchmsgBindStdoutProtocolOnly = stdoutProtocolOnly(&conform.Check{
	ID:          "orchmsg/bind/stdout-protocol-only",
	Protocol:    "orchmsg",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "orchmsg §Parsing Strategy, §Backward Compatibility",
	Requirement: "If not JSON → treat as log output: tolerated, but a conforming agent keeps non-protocol output off stdout (event:log or stderr).",
}, func(r *conform.Record) bool { return r.Msg != nil && r.Key != "" })
