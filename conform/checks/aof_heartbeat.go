package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aofHeartbeatFresh = &conform.Check{
	ID:          "aof/heartbeat/fresh",
	Family:      "heartbeats",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aof-1 §Resume Protocol (run_heartbeat.json, Stale Heartbeat Flow)",
	Requirement: "run_heartbeat.json is updated periodically by the executor: it never expires (expiresAt ≤ now) while the run is alive.",
	Lint:        []string{"AOF-SEQ-007", "AOF-RUN-001"},
	Timing:      true,
	Bad:         `run_heartbeat.json rewritten every 1.2 × TTL, or not at all`,
	Good:        `run_heartbeat.json rewritten every TTL/3 with expiresAt = now + TTL`,
	Run: func(s *conform.Session) conform.Outcome {
		if ev := s.Events(conform.EventStaleHeartbeat); len(ev) > 0 {
			return conform.Mismatch("the scheduler found the run's heartbeat stale and reclaimed the task", "run_heartbeat.json refreshed within its TTL", "expired at "+conform.KeyExpiresAt.Get(ev[0].Detail)).At(seqs(ev)...)
		}
		if s.Last() == nil {
			return conform.NotTestedf("the agent was never started")
		}
		return conform.Passf("the heartbeat stayed fresh")
	},
}
