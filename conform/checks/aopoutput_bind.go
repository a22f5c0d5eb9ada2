package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aopOutBindExitZero = exitZero(&conform.Check{
	ID:          "aop-output/bind/exit-zero",
	Protocol:    "aop-output",
	Spec:        "bindings §aop-output",
	Requirement: "The agent prints its report on stdout, writes its details file and exits 0.",
	After:       []string{"aop-output/format/markers"},
	Timing:      true,
})

var aopOutBindStopOnSIGTERM = stopOnSIGTERM(&conform.Check{
	ID:       "aop-output/bind/stop-on-sigterm",
	Protocol: "aop-output",
	Family:   "timeouts",
	Timing:   true,
})
