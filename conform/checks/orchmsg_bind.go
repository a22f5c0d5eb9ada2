package checks

import (
	"strings"

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
		if a := s.Last(); o.Verdict == conform.Fail && a != nil && !a.ShutdownAt.IsZero() && (!a.Terminated.IsZero() || !a.Killed.IsZero()) {
			return conform.NotJudgedf("orchmsg/shutdown/exit-within-grace", "the agent was still running at the end of the grace period after notify:shutdown and had to be stopped: %s", describeExit(a))
		}
		return o
	}
	return c
}

var orchmsgBindStdoutProtocolOnly = brokenJSONFirst(stdoutProtocolOnly(&conform.Check{
	ID:          "orchmsg/bind/stdout-protocol-only",
	Protocol:    "orchmsg",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "orchmsg §Parsing Strategy, §Backward Compatibility",
	Requirement: "If not JSON → treat as log output: tolerated, but a conforming agent keeps non-protocol output off stdout (event:log or stderr).",
}, func(r *conform.Record) bool { return r.Msg != nil && r.Key != "" }))

// brokenJSONFirst: a stdout line that starts a JSON object but is no typed
// message (a report cut short by a crash, an object without type) is
// orchmsg/format/json's failure, a MUST; stdout-protocol-only, the SHOULD that
// finds the same line, is NOT-JUDGED under it when every line it finds is such
// a line. Free text on stdout is its own.
func brokenJSONFirst(c *conform.Check) *conform.Check {
	run := c.Run
	c.Run = func(s *conform.Session) conform.Outcome {
		o := run(s)
		if o.Verdict != conform.Fail {
			return o
		}
		var seqs []int
		for _, r := range s.AgentLines(0, "stdout") {
			if r.Msg != nil && r.Key != "" {
				continue
			}
			if !strings.HasPrefix(strings.TrimSpace(recordText(r)), "{") {
				return o
			}
			seqs = append(seqs, r.Seq)
		}
		if len(seqs) == 0 {
			return o
		}
		return conform.NotJudgedf("orchmsg/format/json", "record %d starts a JSON object but is not a typed JSON message (%d such lines)", seqs[0], len(seqs))
	}
	return c
}
