package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var aop2HeartbeatInterval = &conform.Check{
	ID:          "aop2/6.1/heartbeat-interval",
	Family:      "heartbeats",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aop2 §6.1; bindings §aop2",
	Requirement: "With execution_policy.heartbeat.enabled the agent writes HEARTBEAT events at interval_seconds until its RESPONSE.",
	Lint:        []string{"AOP2-SEQ-006"},
	Timing:      true,
	Bad:         `interval_seconds 1, heartbeats every 1.5 s`,
	Good:        `a HEARTBEAT event every second until the RESPONSE`,
	Run: func(s *conform.Session) conform.Outcome {
		// The gaps are judged once, from the transcript, by aoplint's AOP2-SEQ-006
		// (lint/spec/aop2's limits, stretched by the timeout_scale the harness
		// wrote): this check takes its findings rather than judging again.
		for _, f := range s.Lint {
			if f.Rule == "AOP2-SEQ-006" {
				o := conform.Mismatch("lint "+f.Rule+": "+f.Message, "a HEARTBEAT at least every interval_seconds", f.Message).At(f.Seq)
				if f.Limit > 0 {
					// The rule's measurement: how far behind, against how far
					// it may be (the margin the runner weighs a FLAKY by).
					o = o.Timed(f.Measured, f.Limit)
				}
				return o
			}
		}
		for _, a := range s.Attempts {
			interval, on := aop2HeartbeatEvery(s, a)
			if !on {
				continue
			}
			// The agent owes a beat per interval of the TASK: an attempt shorter
			// than that owed none (NOT-APPLICABLE).
			end := a.End
			if rs := aop2Responses(s, a.N); len(rs) > 0 {
				end = rs[0].Time
			}
			if !a.Terminated.IsZero() && a.Terminated.Before(end) {
				end = a.Terminated
			}
			if end.Sub(a.Origin()) >= interval {
				return conform.Passf("heartbeats at the interval")
			}
		}
		return conform.NotTestedf("no attempt with heartbeats enabled ran longer than one interval")
	},
}

var aop2HeartbeatLiveness = &conform.Check{
	ID:          "aop2/6.1/heartbeat-liveness",
	Family:      "heartbeats",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aop2 §6.1, §12 E_HEARTBEAT_FAILURE",
	Requirement: "E_HEARTBEAT_FAILURE – missed max_missed_beats: a live agent never lets max_missed_beats intervals pass without a HEARTBEAT.",
	Lint:        []string{"AOP2-SEQ-005"},
	Timing:      true,
	Bad:         `two heartbeats, then silence while working (E_HEARTBEAT_FAILURE)`,
	Good:        `heartbeats keep coming while the agent works`,
	Run: func(s *conform.Session) conform.Outcome {
		if ev := s.Events(conform.EventHeartbeatFailure); len(ev) > 0 {
			return conform.Mismatch("the orchestrator detected a heartbeat failure (E_HEARTBEAT_FAILURE) and aborted the agent", "a HEARTBEAT within interval × max_missed_beats", "no HEARTBEAT for "+fmt.Sprint(conform.KeyMissedForMS.Get(ev[0].Detail))+" ms").At(seqs(ev)...)
		}
		for _, a := range s.Attempts {
			interval, on := aop2HeartbeatEvery(s, a)
			if !on {
				continue
			}
			if len(aop2Responses(s, a.N)) > 0 || a.End.Sub(a.Origin()) >= interval {
				return conform.Passf("no heartbeat failure")
			}
		}
		return conform.NotTestedf("no attempt with heartbeats enabled ran for one interval or answered")
	},
}
