package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aopOutLintMessagesValid = lintClean(&conform.Check{
	ID:   "aop-output/lint/messages-valid",
	Spec: "aop-output-1.0.0 §AOP Format Specification",
	// A report without its frame ([AOP:START]..[AOP:END]) is read by the
	// linter line by line ("line is not JSON"): format/markers' failure.
	After: []string{"aop-output/format/markers"},
})
