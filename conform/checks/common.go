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
	case !a.Terminated.IsZero() || !a.Killed.IsZero():
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
// check: every stdout line is a protocol message (isProto).
func stdoutProtocolOnly(c *conform.Check, isProto func(r *conform.Record) bool) *conform.Check {
	c.Family = "output-hygiene"
	c.Bad, c.Good = `"compiling module 3 of 5..." on stdout`, `protocol messages on stdout, logs on stderr`
	c.Run = func(s *conform.Session) conform.Outcome {
		lines := s.AgentLines(0, "stdout")
		if len(lines) == 0 {
			return conform.NotTestedf("the agent wrote nothing on stdout")
		}
		for _, r := range lines {
			if !isProto(r) {
				return conform.Mismatch(fmt.Sprintf("record %d on stdout is not a protocol message", r.Seq), "only protocol messages on stdout (logs on stderr)", conform.Clip(recordText(r), 200)).At(r.Seq)
			}
		}
		return conform.Passf("%d stdout lines, all protocol messages", len(lines))
	}
	return c
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
