package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// lintClean completes a protocol's <protocol>/lint/messages-valid check: every
// agent message passes aoplint.
func lintClean(c *conform.Check) *conform.Check {
	c.Family, c.Tier, c.Level = "happy-path", conform.Core, conform.MUST
	c.Requirement = "Every message the agent sends is valid under aoplint's single-message and sequence rules."
	c.Lint = []string{"*"}
	c.Bad, c.Good = `a message aoplint rejects (schema, timestamps, sequence)`, `messages aoplint passes`
	c.Run = func(s *conform.Session) conform.Outcome {
		// Lint errors fail this check in the runner; a scenario in which the
		// agent was stopped before it said anything has nothing to lint.
		return conform.Passf("no lint errors on %d agent records", len(s.AgentLines(0, "")))
	}
	return c
}

func exitedCleanly(s *conform.Session, a *conform.Attempt) conform.Outcome {
	switch {
	case a.Timeout:
		return conform.Mismatch("the agent was still running at the scenario deadline and had to be stopped", "exit 0 before the deadline", describeExit(a))
	case a.Stopped():
		return conform.Mismatch("the harness had to stop the agent", "exit 0 by itself", describeExit(a))
	case a.Exit.Signal != "":
		return conform.Mismatch("the agent died of a signal", "exit 0", describeExit(a))
	case a.Exit.Code != 0:
		return conform.Mismatch("the agent exited with a non-zero code", "exit 0", describeExit(a))
	}
	return conform.Passf("exited 0 after %s", a.End.Sub(a.Start).Round(time.Millisecond))
}

func describeExit(a *conform.Attempt) string {
	var parts []string
	if a.Exit.Signal != "" {
		parts = append(parts, "killed by "+a.Exit.Signal)
	} else {
		parts = append(parts, fmt.Sprintf("exit %d", a.Exit.Code))
	}
	if a.Timeout {
		parts = append(parts, "deadline reached")
	}
	if !a.Terminated.IsZero() {
		parts = append(parts, "SIGTERM sent")
	}
	if !a.Killed.IsZero() {
		parts = append(parts, "SIGKILL sent")
	}
	return strings.Join(parts, ", ")
}

// stdoutProtocolOnly completes a protocol's <protocol>/bind/stdout-protocol-only
// check: every stdout line is a protocol message (isProto). A line that starts
// a JSON object but is no message (malformed, cut short by a crash, or an
// object without the protocol's type) was meant as one: when jsonCheck is
// given, the check that judges such lines, and every line this check finds is
// one, it is NOT-JUDGED under jsonCheck (a MUST of the protocol's JSON rules,
// while stdout hygiene is about logs). Free text on stdout is its own failure.
func stdoutProtocolOnly(c *conform.Check, isProto func(r *conform.Record) bool, jsonCheck string) *conform.Check {
	c.Family = "output-hygiene"
	c.Bad, c.Good = `"compiling module 3 of 5..." on stdout`, `protocol messages on stdout, logs on stderr`
	c.Run = func(s *conform.Session) conform.Outcome {
		lines := s.AgentLines(0, "stdout")
		if len(lines) == 0 {
			return vacuous()
		}
		var meant []int // lines meant as messages
		for _, r := range lines {
			switch {
			case isProto(r):
			case jsonCheck != "" && startsObject(r):
				meant = append(meant, r.Seq)
			default:
				return conform.Mismatch(fmt.Sprintf("record %d on stdout is not a protocol message", r.Seq), "only protocol messages on stdout (logs on stderr)", conform.Clip(recordText(r), 200)).At(r.Seq)
			}
		}
		if len(meant) > 0 {
			return conform.NotJudgedf(jsonCheck, "record %d starts a JSON object but is not a message of the protocol (%d such lines)", meant[0], len(meant)).At(meant...)
		}
		return conform.Passf("%d stdout lines, all protocol messages", len(lines))
	}
	return c
}

// startsObject: the record's text starts a JSON object.
func startsObject(r *conform.Record) bool {
	return strings.HasPrefix(strings.TrimSpace(recordText(r)), "{")
}

// meantAsMessage: a stdout line that starts a JSON object but does not parse
// (malformed, or cut short by a crash) was meant as a message.
func meantAsMessage(r *conform.Record) bool {
	return r.Msg == nil && startsObject(r)
}

func recordText(r *conform.Record) string {
	if r.Text != nil {
		return *r.Text
	}
	return string(r.Msg)
}

func seqs(rs []*conform.Record) []int {
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = r.Seq
	}
	return out
}

// slack is a tolerance for the harness's own timing, stretched by --timeout-scale.
func slack(s *conform.Session, d time.Duration) time.Duration {
	sc := s.Scale
	if sc <= 0 {
		sc = 1
	}
	return time.Duration(float64(d) * sc)
}

// invalid is the failure of record seq when problems lists what is wrong with
// it (nil when nothing is): "record <seq><what>", want against the problems.
func invalid(seq int, what, want string, problems []string) *conform.Outcome {
	if len(problems) == 0 {
		return nil
	}
	o := conform.Mismatch(fmt.Sprintf("record %d%s", seq, what), want, strings.Join(problems, "\n")).At(seq)
	return &o
}

// vacuous is the outcome of a rule about what the agent sends when it sent
// nothing in the scenario: no message breaks it, and none keeps it either, so it
// is NOT-APPLICABLE, not a failure (the silence fails the checks that need a
// message: a final response, a completion).
func vacuous() conform.Outcome {
	return conform.Outcome{Verdict: conform.NotApplicable, Message: "not applicable: the agent sent no message, so none breaks the rule"}
}

// crashed is the outcome of a check that did not see what it judges because
// the agent crashed first ("the agent exited with code 2 <what>"): NOT-JUDGED
// under conform.CrashRoot, which reports the crash (where it does not judge
// the scenario and failed nowhere, this check reports the crash itself:
// conform.ResolveDependencies). nil when the last attempt did not crash.
func crashed(s *conform.Session, what string) *conform.Outcome {
	root := conform.CrashRoot(s)
	if root == "" {
		return nil
	}
	o := conform.NotJudgedf(root, "the agent exited with code %d %s", s.Last().Exit.Code, what)
	return &o
}
