package checks

import "github.com/aopkit/aopkit/conform"

// exitZero: the last attempt ended by itself with code 0, before the deadline.
// Every protocol has it, with what its binding says of the exit (exitZeroFor).
var exitZero = conform.Check{
	ID:     "bind/exit-zero",
	Family: "happy-path",
	Tier:   conform.Core,
	Level:  conform.MUST,
	Timing: true,
	Bad:    `exit 2 after the work, or still running at the deadline`,
	Good:   `exit 0 when done`,
	Run: func(s *conform.Session) conform.Outcome {
		a := s.Last()
		if a == nil {
			return conform.NotTestedf("the agent was never started")
		}
		return exitedCleanly(s, a)
	},
}

// exitZeroFor is protocol's <protocol>/bind/exit-zero: requirement is what its
// binding (bindings §<protocol>) says the agent does before it exits 0, after
// the checks whose failure is the root cause of a bad exit (conform.Check.After).
// Each protocol's stands in its <protocol>_bind.go.
func exitZeroFor(protocol, requirement string, after ...string) *conform.Check {
	c := forProtocol(protocol, exitZero)
	c.Spec, c.Requirement, c.After = "bindings §"+protocol, requirement, after
	return c
}
