package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aofLintMessagesValid = lintClean(&conform.Check{
	ID:   "aof/lint/messages-valid",
	Spec: "aof-1 §Protocol Envelope, §Message Types",
})
