package checks

import (
	"fmt"
	"time"

	"github.com/aopkit/aopkit/conform"
)

var orchmsgShutdownExitWithinGrace = &conform.Check{
	ID:          "orchmsg/shutdown/exit-within-grace",
	Family:      "cancellation",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "orchmsg §Shutdown; bindings §orchmsg",
	Requirement: "notify:shutdown (payload gracePeriod in ms): after shutdown the agent exits within the grace period.",
	Lint:        []string{"ORCH-SEQ-007"},
	// In orchmsg-withheld-request an agent that blocks on its unanswered
	// request misses the grace period: responses-awaited's failure there (unless
	// that is NOT-JUDGED under this check's failure elsewhere).
	// A report cut short (format/json: a crash mid-line) ends the agent before
	// the notification, as a completion never reported does.
	After:  []string{"orchmsg/completion/reported", "orchmsg/format/json", "orchmsg/correlation/responses-awaited"},
	Timing: true,
	Bad:    `notify:shutdown gracePeriod 1000 ignored; SIGKILL needed`,
	Good:   `notify:shutdown received, the agent flushes and exits 0 at once`,
	Run: func(s *conform.Session) conform.Outcome {
		a := s.Last()
		if a == nil || a.ShutdownAt.IsZero() {
			return conform.NotTestedf("the agent ended before the shutdown notification")
		}
		took := a.End.Sub(a.ShutdownAt)
		// The grace period is timed once, by the engine: when it is over (grown
		// by the CPU wait the machine's load caused the agent meanwhile,
		// harness.TerminateDue) the engine stops the agent (the harness's signal
		// event, which aoplint's ORCH-SEQ-007 reads too); an agent still running
		// then failed, untimed (TimedBy: how long it ran is the harness's doing).
		// The scenario deadline stopping it before the grace period was over
		// leaves the requirement untested: that stop is no act of the agent's.
		if a.Timeout && a.Terminated.Sub(a.ShutdownAt) < a.ShutdownFor {
			return conform.NotTestedf("the scenario deadline stopped the agent %s after notify:shutdown, before its grace period of %s was over", a.Terminated.Sub(a.ShutdownAt).Round(time.Millisecond), a.ShutdownFor)
		}
		if a.Stopped() {
			return conform.Mismatch("the agent did not exit within the grace period after notify:shutdown: the harness stopped it", fmt.Sprintf("exit within %s", a.ShutdownFor), fmt.Sprintf("%s; ran %s after shutdown", describeExit(a), took.Round(time.Millisecond))).TimedBy(a, took, a.ShutdownFor)
		}
		if a.Exit.Code != 0 {
			// It exited in time: the code is orchmsg/bind/exit-zero's to report
			// (a non-zero exit is one cause, one failure; when exit-zero failed
			// nowhere, ResolveDependencies makes this a FAIL naming it).
			return conform.NotJudgedf("orchmsg/bind/exit-zero", "the agent exited within the grace period after notify:shutdown, but non-zero: %s", describeExit(a))
		}
		return conform.Passf("exited %s after notify:shutdown", took.Round(time.Millisecond))
	},
}
