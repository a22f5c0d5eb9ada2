package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var orchmsgBindExitZero = exitZeroFor("orchmsg", "After notify:shutdown (or when its work is done) the agent exits 0 by itself.",
	"orchmsg/completion/reported")

var orchmsgBindStdoutProtocolOnly = stdoutProtocolOnly(&conform.Check{
	ID:          "orchmsg/bind/stdout-protocol-only",
	Protocol:    "orchmsg",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "orchmsg §Parsing Strategy, §Backward Compatibility",
	Requirement: "If not JSON → treat as log output: tolerated, but a conforming agent keeps non-protocol output off stdout (event:log or stderr).",
}, func(r *conform.Record) bool { return r.Msg != nil && r.Key != "" })
