package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aofRunWithinDeadline = &conform.Check{
	ID:          "aof/run/within-deadline",
	Family:      "timeouts",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aof-1 §Resume Protocol; bindings §aof",
	Requirement: "The run ends (completion.report, then exit) before the scenario's deadline; a run that never ends is stopped and reported.",
	After:       []string{"aof/heartbeat/fresh"},
	Timing:      true,
	Bad:         `the agent heartbeats forever and never completes`,
	Good:        `completion.report and exit within the deadline`,
	Run: func(s *conform.Session) conform.Outcome {
		if ev := s.Events(conform.EventTimeout); len(ev) > 0 {
			return conform.Mismatch("the run was still going at the deadline", "completion and exit before the deadline", "deadline reached; stopped by the harness").At(seqs(ev)...)
		}
		return conform.Passf("the run ended within the deadline")
	},
}
