package checks

import (
	"fmt"
	"time"

	"github.com/aopkit/aopkit/conform"
)

var aop2BindExitZero = slowFirst(exitZeroFor("aop2", "The agent writes exactly one final RESPONSE as JSON lines on stdout, then exits 0.",
	"aop2/6.1/heartbeat-liveness", "aop2/11/finish-within-timeout", "aop2/5/final-response"))

// slowFirst: an agent still working, without a RESPONSE, when the scenario's
// deadline stopped it is too slow to finish, aop2/11/finish-within-timeout's
// failure (as aop2/5/final-response's missing RESPONSE is then; the declared
// After does not reach it, final-response being NOT-JUDGED itself). An agent
// that answered and then ran on to the deadline failed exit-zero itself.
func slowFirst(c *conform.Check) *conform.Check {
	run := c.Run
	c.Run = func(s *conform.Session) conform.Outcome {
		o := run(s)
		if a := s.Last(); o.Verdict == conform.Fail && a != nil && a.Timeout && len(aop2Responses(s, a.N)) == 0 {
			return stillWorking(s, a)
		}
		return o
	}
	return c
}

// stillWorking is the outcome of a check that needed the RESPONSE of an attempt
// the scenario's deadline stopped before it answered.
func stillWorking(s *conform.Session, a *conform.Attempt) conform.Outcome {
	return conform.NotJudgedf("aop2/11/finish-within-timeout", "no RESPONSE: attempt %d was still working when the scenario's deadline stopped it; %s", a.N, describeAttempt(s, a))
}

var aop2BindStdoutProtocolOnly = stdoutProtocolOnly(&conform.Check{
	ID:          "aop2/bind/stdout-protocol-only",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "aop2 §1.3; bindings §aop2",
	Requirement: "The agent writes EVENT and RESPONSE JSON lines on stdout; anything else is not the protocol and belongs on stderr.",
}, func(r *conform.Record) bool { return r.Msg != nil && r.Key != "" }, "aop2/lint/messages-valid")

var aop2BindStopOnEOF = &conform.Check{
	ID:          "aop2/bind/stop-on-eof",
	Family:      "cancellation",
	Tier:        conform.Resilient,
	Level:       conform.SHOULD,
	Spec:        "bindings §aop2",
	Requirement: "EOF on stdin = orchestrator gone: the agent should stop.",
	Timing:      true,
	Bad:         `stdin closes; the agent keeps working for a minute`,
	Good:        `stdin closes; the agent exits at once`,
	Run: func(s *conform.Session) conform.Outcome {
		tested := false
		for _, a := range s.Attempts {
			if a.StdinClosed.IsZero() {
				continue
			}
			rs := aop2Responses(s, a.N)
			if len(rs) > 0 && rs[0].Time.Before(a.StdinClosed) {
				continue
			}
			tested = true
			grace := slack(s, 2*time.Second)
			if a.Timeout && a.Terminated.Sub(a.StdinClosed) < grace {
				// The deadline's stop is no act of the agent's: it ended the
				// attempt before its time to stop after EOF was over.
				return conform.NotTestedf("the scenario deadline stopped the agent %s after EOF, before its %s to stop were over", a.Terminated.Sub(a.StdinClosed).Round(time.Millisecond), grace)
			}
			if took := a.End.Sub(a.StdinClosed); a.Stopped() || took > grace {
				// TimedBy: a stopped agent has no margin to excuse.
				return conform.Mismatch("the agent kept running after its stdin was closed", fmt.Sprintf("exit within %s of EOF", grace), describeExit(a)+fmt.Sprintf(", ran %s after EOF", took.Round(time.Millisecond))).TimedBy(a, took, grace)
			}
		}
		if !tested {
			return conform.NotTestedf("the agent finished before its stdin was closed")
		}
		return conform.Passf("the agent stopped after EOF on stdin")
	},
}
