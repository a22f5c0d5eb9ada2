package checks

import (
	"fmt"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// stopOnSIGTERM: after SIGTERM (a timeout or cancellation by the orchestrator)
// the agent exits within the grace period, without SIGKILL. Every protocol has
// it (forProtocol).
var stopOnSIGTERM = conform.Check{
	ID:          "bind/stop-on-sigterm",
	Family:      "timeouts",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "bindings §Process control",
	Requirement: "\"Stop\" = SIGTERM to the group, then SIGKILL after a grace period: the agent exits within the grace period after SIGTERM.",
	Timing:      true,
	Bad:         `trap '' TERM; the agent needs SIGKILL`,
	Good:        `on SIGTERM the agent exits within the grace period`,
	Run: func(s *conform.Session) conform.Outcome {
		var slowest time.Duration
		tested := false
		for _, a := range s.Attempts {
			if a.Terminated.IsZero() {
				continue
			}
			tested = true
			if !a.Killed.IsZero() && a.Killed.After(a.Terminated) {
				return slowSIGTERMExit(s, a)
			}
			slowest = max(slowest, a.End.Sub(a.Terminated))
		}
		if !tested {
			return conform.NotTestedf("the agent ended before the harness stopped it")
		}
		return conform.Passf("the agent exited %s after SIGTERM, within the grace period", slowest.Round(time.Millisecond))
	},
}

// slowSIGTERMExit is the failure of an attempt the harness had to kill after its
// SIGTERM: how long it ran after SIGTERM, and whether it reacted at all (output
// after SIGTERM: a slow exit) or not (it ignored SIGTERM).
func slowSIGTERMExit(s *conform.Session, a *conform.Attempt) conform.Outcome {
	ran := a.Killed.Sub(a.Terminated).Round(time.Millisecond)
	what := fmt.Sprintf("attempt %d was still running %s after SIGTERM, at the end of the grace period, and had to be killed", a.N, ran)
	var last time.Time
	out := 0
	for _, r := range s.AgentLines(a.N, "") {
		if r.Time.After(a.Terminated) {
			out++
			last = r.Time
		}
	}
	if out > 0 {
		what += fmt.Sprintf(": it reacted (%d lines after SIGTERM, the last %s after it) but did not exit in time", out, last.Sub(a.Terminated).Round(time.Millisecond))
	} else {
		what += ": it wrote nothing after SIGTERM (ignored it, or was busy)"
	}
	o := conform.Mismatch(what, "exit within the grace period after SIGTERM", fmt.Sprintf("%s; still running %s after SIGTERM", describeExit(a), ran))
	for i := range s.Records {
		if r := &s.Records[i]; r.From == conform.ActorHarness && r.Attempt == a.N && (r.Event == conform.EventSignal || r.Event == conform.EventKill) {
			o.Seq = append(o.Seq, r.Seq)
		}
	}
	return o
}
