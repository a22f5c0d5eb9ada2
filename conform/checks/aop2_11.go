package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aop2FinishWithinTimeout = &conform.Check{
	ID:          "aop2/11/finish-within-timeout",
	Family:      "timeouts",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aop2 §11, §12 E_TIMEOUT",
	Requirement: "The executor finishes within the effective timeout (guard_rails.timeout_seconds overrides execution_policy.timeout_seconds); otherwise E_TIMEOUT and the orchestrator terminates it.",
	Lint:        []string{"AOP2-SEQ-010"},
	After:       []string{"aop2/6.2/progress-rate"},
	Timing:      true,
	Bad:         `guard_rails.timeout_seconds 2, RESPONSE after 60 s (terminated with E_TIMEOUT)`,
	Good:        `RESPONSE well within the effective timeout`,
	Run: func(s *conform.Session) conform.Outcome {
		for _, r := range s.Events(conform.EventSignal) {
			if conform.KeyReason.Get(r.Detail) == "E_TIMEOUT" {
				a := s.Attempt(r.Attempt)
				if a != nil && len(aop2Responses(s, a.N)) > 0 && aop2Responses(s, a.N)[0].Seq < r.Seq {
					continue
				}
				return conform.Mismatch("the agent did not finish within the effective timeout and was terminated (E_TIMEOUT)", "a RESPONSE before the effective timeout", "terminated at the timeout").At(r.Seq)
			}
		}
		if ev := s.Events(conform.EventTimeout); len(ev) > 0 {
			return conform.Mismatch("the agent was still running at the scenario deadline", "a RESPONSE before the deadline", "deadline reached")
		}
		if _, _, bad := aop2Final(s); bad != nil {
			return *bad
		}
		return conform.Passf("the RESPONSE came within the effective timeout")
	},
}
