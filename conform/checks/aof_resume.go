package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aofResumeCleanStart = &conform.Check{
	ID:          "aof/resume/clean-start",
	Family:      "stale-recovery",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aof-1 §Resume Protocol, §Outcome-Driven Recovery",
	Requirement: "A task re-dispatched after a stale-heartbeat reclaim starts cleanly: the agent completes it with its own completion.report and the task reaches review (or done, blocked).",
	After:       []string{"aof/lint/messages-valid", "aof/heartbeat/fresh", "aof/run/within-deadline", "aof/envelope/json", "aof/envelope/fields", "aof/envelope/task-and-sender", "aof/completion/reported", "aof/completion/payload", "aof/bind/exit-zero"},
	Timing:      true,
	Bad:         `re-dispatched after a reclaim, the agent reports the dead run's work and never completes`,
	Good:        `the agent does this run's work and sends its own completion.report`,
	Run: func(s *conform.Session) conform.Outcome {
		final := conform.FactAOFFinalStatus.Get(s)
		switch final {
		case "review", "done", "blocked":
			return conform.Passf("the task ended in %s", final)
		}
		return conform.Mismatch("the re-dispatched task did not reach a post-run status", "review, done or blocked", orDash(final))
	},
}
