package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aosLintMessagesValid = lintClean(&conform.Check{
	ID:   "aos/lint/messages-valid",
	Spec: "aos-0.1.0 §3, §4",
})
