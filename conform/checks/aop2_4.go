package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

var aop2ResponseSize = &conform.Check{
	ID:          "aop2/4/response-size",
	Family:      "happy-path",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "aop2 §4",
	Requirement: "Total RESPONSE envelope: 500KB JSON, HARD (reject with E_CONTEXT_OVERFLOW).",
	Lint:        []string{"AOP2-LIMIT-002", "AOP2-LIMIT-003"},
	Bad:         `a RESPONSE of 600 KB with the full log inlined`,
	Good:        `a RESPONSE under 500 KB; big outputs go to files named in output_artifacts`,
	Run: func(s *conform.Session) conform.Outcome {
		rs := s.ByKey(0, "RESPONSE")
		if len(rs) == 0 {
			if a := s.Last(); a != nil {
				return aop2NoResponse(s, a)
			}
			return conform.NotTestedf("the agent was never started")
		}
		for _, r := range rs {
			if size, over := aop2spec.OverSize(r.Msg, aop2spec.MaxResponseBytes); over {
				return conform.Mismatch(fmt.Sprintf("record %d is a RESPONSE of %d bytes compact", r.Seq, size), "at most 500KB", fmt.Sprintf("%d bytes", size)).At(r.Seq)
			}
		}
		return conform.Passf("RESPONSE within 500KB")
	},
}
