package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

var orchmsgRateLimit = &conform.Check{
	ID:          "orchmsg/rate/limit",
	Family:      "rate-limit",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "orchmsg §Security Considerations",
	Requirement: "Rate Limiting: Prevent message flooding (100 msg/sec limit).",
	Lint:        []string{"ORCH-SEQ-005"},
	Bad:         `150 event:log lines at once`,
	Good:        `a handful of messages per second`,
	Run: func(s *conform.Session) conform.Outcome {
		var rate spec.Rate[*conform.Record]
		n := 0
		for _, r := range s.AgentLines(0, "stdout") {
			if r.Msg == nil {
				continue
			}
			n++
			if over, first, _ := rate.Add(r.Time, r); over {
				return conform.Mismatch(fmt.Sprintf("more than %d messages within one second", spec.RateLimit), fmt.Sprintf("at most %d messages per second", spec.RateLimit), fmt.Sprintf("%d messages between records %d and %d", spec.RateLimit+1, first.Seq, r.Seq)).At(first.Seq, r.Seq)
			}
		}
		if n == 0 {
			return vacuous()
		}
		return conform.Passf("%d messages within the rate limit", n)
	},
}
