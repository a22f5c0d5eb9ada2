package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var orchmsgBindExitZero = shutdownIgnoredFirst(exitZeroFor("orchmsg", "After notify:shutdown (or when its work is done) the agent exits 0 by itself.",
	"orchmsg/completion/reported", "orchmsg/format/json"))

// shutdownIgnoredFirst: an agent the harness had to stop after notify:shutdown
// did not exit within the grace period: orchmsg/shutdown/exit-within-grace's
// failure, in every scenario that sends the notification (one cause, one
// failure; exit-within-grace does not run in all of them, so the dependency is
// the check's own evidence, not an After: when exit-within-grace failed in no
// scenario, ResolveDependencies makes this a FAIL naming the exit itself). The
// reverse, an exit in time but non-zero, is exit-zero's, and exit-within-grace
// is NOT-JUDGED under it.
func shutdownIgnoredFirst(c *conform.Check) *conform.Check {
	run := c.Run
	c.Run = func(s *conform.Session) conform.Outcome {
		o := run(s)
		if a := s.Last(); o.Verdict == conform.Fail && a != nil && !a.ShutdownAt.IsZero() && a.Stopped() {
			return conform.NotJudgedf("orchmsg/shutdown/exit-within-grace", "the agent was still running at the end of the grace period after notify:shutdown and had to be stopped: %s", describeExit(a))
		}
		return o
	}
	return c
}

var orchmsgBindStdoutProtocolOnly = stdoutProtocolOnly(&conform.Check{
	ID:          "orchmsg/bind/stdout-protocol-only",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "orchmsg §Parsing Strategy, §Backward Compatibility",
	Requirement: "If not JSON → treat as log output: tolerated, but a conforming agent keeps non-protocol output off stdout (event:log or stderr).",
}, func(r *conform.Record) bool { return r.Msg != nil && r.Key != "" }, "orchmsg/format/json")
