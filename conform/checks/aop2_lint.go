package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aop2LintMessagesValid = lintClean(&conform.Check{
	ID:   "aop2/lint/messages-valid",
	Spec: "aop2 §1–§12",
})
