package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aopOutLintMessagesValid = lintClean(&conform.Check{
	ID:       "aop-output/lint/messages-valid",
	Protocol: "aop-output",
	Spec:     "aop-output-1.0.0 §AOP Format Specification",
})
