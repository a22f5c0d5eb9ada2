package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var orchmsgLimitMessageSize = &conform.Check{
	ID:          "orchmsg/limit/message-size",
	Family:      "output-hygiene",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "orchmsg §Security Considerations; bindings §orchmsg",
	Requirement: "One message is at most 1 MiB (larger lines are cut by the orchestrator and lost).",
	Lint:        []string{"GEN-SIZE-001"},
	Bad:         `an event:log of 1.5 MiB`,
	Good:        `a short event:log; large data goes to files`,
	Run: func(s *conform.Session) conform.Outcome {
		for _, r := range s.AgentLines(0, "stdout") {
			if r.Truncated {
				return conform.Mismatch(fmt.Sprintf("record %d is longer than 1 MiB", r.Seq), "at most 1 MiB per line", "cut at 1 MiB").At(r.Seq)
			}
		}
		if len(s.AgentLines(0, "stdout")) == 0 {
			return vacuous()
		}
		return conform.Passf("every line within 1 MiB")
	},
}
