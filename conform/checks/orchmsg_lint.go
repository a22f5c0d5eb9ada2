package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var orchmsgLintMessagesValid = lintClean(&conform.Check{
	ID:   "orchmsg/lint/messages-valid",
	Spec: "orchmsg §Message Format, §Supported Requests, §Supported Events",
})
