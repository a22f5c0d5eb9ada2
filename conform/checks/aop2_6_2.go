package checks

import (
	"fmt"
	"time"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

var aop2ProgressRate = &conform.Check{
	ID:          "aop2/6.2/progress-rate",
	Family:      "heartbeats",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aop2 §6.2",
	Requirement: "PROGRESS_UPDATE frequency: not more than once every 30 seconds.",
	Lint:        []string{"AOP2-SEQ-007"},
	Bad:         `a PROGRESS_UPDATE every second`,
	Good:        `at most one PROGRESS_UPDATE per 30 s`,
	Run: func(s *conform.Session) conform.Outcome {
		for _, a := range s.Attempts {
			ps := s.ByKey(a.N, "EVENT/PROGRESS_UPDATE")
			for i := 1; i < len(ps); i++ {
				if gap := ps[i].Time.Sub(ps[i-1].Time); aop2spec.ProgressTooSoon(gap, true) {
					return conform.Mismatch("two PROGRESS_UPDATE events less than 30 s apart", "at most one PROGRESS_UPDATE per 30 s", fmt.Sprintf("%s apart", gap.Round(time.Millisecond))).At(ps[i-1].Seq, ps[i].Seq)
				}
			}
		}
		if len(s.AgentMsgs(0)) == 0 {
			return vacuous()
		}
		return conform.Passf("progress updates within the rate")
	},
}
