package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var aop2RecoveryCleanRestart = &conform.Check{
	ID:          "aop2/recovery/clean-restart",
	Family:      "stale-recovery",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aop2 §2.2 task.attempt; bindings §aop2",
	Requirement: "An executor re-dispatched after its previous run was killed starts cleanly: it completes the same task with one RESPONSE and exits 0.",
	After:       []string{"aop2/6.1/heartbeat-liveness", "aop2/11/finish-within-timeout", "aop2/5/final-response", "aop2/bind/exit-zero"},
	Bad:         `re-dispatched with task.attempt 2, the agent crashes on the previous attempt's files`,
	Good:        `re-dispatched, the agent completes the task with one RESPONSE and exits 0`,
	Run: func(s *conform.Session) conform.Outcome {
		if len(s.Attempts) < 2 {
			return conform.NotTestedf("the scenario did not re-dispatch")
		}
		a := s.Last()
		rs := aop2Responses(s, a.N)
		if len(rs) != 1 {
			return conform.Mismatch("the re-dispatched agent did not answer with exactly one RESPONSE", "1 RESPONSE", describeAttempt(s, a))
		}
		got, want := aop2Resp(s, rs[0]).TaskID, aop2Input(s, a).Task.TaskID
		if got != want {
			// A wrong task_id is aop2/1.2/response-ids' to report, in this
			// scenario too: one cause, one failure (when response-ids did not
			// fail, ResolveDependencies makes this a FAIL naming it).
			return conform.NotJudgedf("aop2/1.2/response-ids", "the re-dispatched agent answered another task: %q, not %q", got, want)
		}
		if o := exitedCleanly(s, a); o.Verdict != conform.Pass {
			if a.Exit.Code != 0 && a.Exit.Signal == "" && !a.Timeout && a.Terminated.IsZero() && a.Killed.IsZero() {
				// It answered and exited by itself, non-zero: the code is
				// aop2/bind/exit-zero's to report (which this scenario does not
				// run: it is NOT-JUDGED while exit-zero fails in another one, a
				// FAIL naming the exit when exit-zero failed nowhere).
				return conform.NotJudgedf("aop2/bind/exit-zero", "the re-dispatched agent answered, then exited non-zero: %s", describeExit(a))
			}
			return o
		}
		return conform.Passf("attempt %d completed cleanly", a.N)
	},
}

var aop2RecoveryHonestAttempt = &conform.Check{
	ID:          "aop2/recovery/honest-attempt",
	Family:      "stale-recovery",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "aop2 §5 timing",
	Requirement: "A re-dispatched executor reports honestly: timing.retries_attempted counts the earlier attempts (task.attempt − 1).",
	Bad:         `task.attempt 2 answered with "timing":{"retries_attempted":0}`,
	Good:        `"timing":{"retries_attempted":1} for task.attempt 2`,
	Run: func(s *conform.Session) conform.Outcome {
		if len(s.Attempts) < 2 {
			return conform.NotTestedf("the scenario did not re-dispatch")
		}
		r, m, bad := aop2Final(s)
		if bad != nil {
			return *bad
		}
		attAt := aop2Input(s, s.Last()).Task.Attempt
		if attAt == nil {
			return conform.NotTestedf("the TASK has no task.attempt")
		}
		att := *attAt
		if m.Timing == nil || m.Timing.RetriesAttempted == nil {
			return conform.NotTestedf("the RESPONSE reports no timing.retries_attempted")
		}
		got := *m.Timing.RetriesAttempted
		if got != att-1 {
			return conform.Mismatch("retries_attempted does not match the attempt", fmt.Sprint(att-1), fmt.Sprint(got)).At(r.Seq)
		}
		return conform.Passf("retries_attempted = %g", got)
	},
}
