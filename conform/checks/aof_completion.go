package checks

import (
	"fmt"
	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/conform"
)

var aofCompletionReported = &conform.Check{
	ID:          "aof/completion/reported",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aof-1 §Best Practices, §Completion Protocol; bindings §aof",
	Requirement: "Always send completion.report before session ends: exactly one valid completion.report for the leased task.",
	Lint:        []string{"AOF-SEQ-004", "AOF-SEQ-006"},
	After:       []string{"aof/lint/messages-valid", "aof/heartbeat/fresh", "aof/run/within-deadline", "aof/envelope/json", "aof/envelope/fields"},
	Timing:      true,
	Bad:         `exit 0 without completion.report, or the report sent twice`,
	Good:        `exactly one completion.report, then exit 0`,
	Run: func(s *conform.Session) conform.Outcome {
		task := aofTask(s).TaskID
		var mine []aofLine
		for _, l := range aofCompletions(s) {
			if l.env.TaskID.V == task {
				mine = append(mine, l)
			}
		}
		a := s.Last()
		if a == nil {
			return conform.NotTestedf("the agent was never started")
		}
		if len(mine) != 1 {
			o := conform.Mismatch(fmt.Sprintf("the agent sent %d completion reports for %s", len(mine), task), "exactly 1 completion.report", describeAttempt(s, a))
			for _, l := range mine {
				o.Seq = append(o.Seq, l.r.Seq)
			}
			return o
		}
		return conform.Outcome{Verdict: conform.Pass, Message: "one completion.report", Seq: []int{mine[0].r.Seq}}
	},
}

var aofCompletionPayload = &conform.Check{
	ID:          "aof/completion/payload",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aof-1 §Completion Report Payload",
	Requirement: "outcome (done|blocked|needs_review|partial), summaryRef, tests {total, passed, failed} and notes are required; passed + failed ≤ total; blocked needs blockers; notes at most 10,000 characters.",
	Lint:        []string{"AOF-COMP-", "AOF-LIMIT-001"},
	Bad:         `{"protocol":"aof","version":1,"type":"completion.report","taskId":"TASK-2026-02-09-057","fromAgent":"swe-backend","toAgent":"dispatcher","sentAt":"2026-02-09T21:10:00.000Z","payload":{"outcome":"done","summaryRef":"outputs/summary.md","tests":{"total":3,"passed":3,"failed":1},"notes":"All tests pass."}}`,
	Good:        `{"protocol":"aof","version":1,"type":"completion.report","taskId":"TASK-2026-02-09-057","fromAgent":"swe-backend","toAgent":"dispatcher","sentAt":"2026-02-09T21:10:00.000Z","payload":{"outcome":"done","summaryRef":"outputs/summary.md","tests":{"total":3,"passed":3,"failed":0},"notes":"All tests pass."}}`,
	Run: func(s *conform.Session) conform.Outcome {
		cs := aofCompletions(s)
		if len(cs) == 0 {
			return aofNoCompletion()
		}
		for _, l := range cs {
			p := aofCompletion(l.env)
			var problems []string
			switch o := p.Outcome.V; {
			case !spec.ValidOutcome(o):
				problems = append(problems, fmt.Sprintf("outcome %q is not done|blocked|needs_review|partial", o))
			case o == spec.OutcomeBlocked:
				if len(p.Blockers.V) == 0 {
					problems = append(problems, "outcome blocked needs blockers")
				}
			}
			if p.SummaryRef.V == "" {
				problems = append(problems, "summaryRef is required")
			}
			tot, ok1 := aofNum(p.Tests.V.Total)
			pass, ok2 := aofNum(p.Tests.V.Passed)
			fail, ok3 := aofNum(p.Tests.V.Failed)
			if !ok1 || !ok2 || !ok3 {
				problems = append(problems, "tests {total, passed, failed} is required")
			} else if pass+fail > tot || pass < 0 || fail < 0 {
				problems = append(problems, fmt.Sprintf("tests: passed %g + failed %g exceeds total %g", pass, fail, tot))
			}
			notes := p.Notes.V
			if !p.Notes.OK {
				problems = append(problems, "notes is required")
			} else if len([]rune(notes)) > spec.MaxNotes {
				problems = append(problems, fmt.Sprintf("notes has %d characters (limit %d)", len([]rune(notes)), spec.MaxNotes))
			}
			if o := invalid(l.r.Seq, ": invalid completion.report payload", "a valid completion payload", problems); o != nil {
				return *o
			}
		}
		return conform.Passf("completion payload valid")
	},
}

var aofCompletionSummaryExists = &conform.Check{
	ID:          "aof/completion/summary-exists",
	Family:      "happy-path",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "aof-1 §Completion Protocol (Error Cases)",
	Requirement: "The summaryRef and deliverables a completion.report names exist (missing summary files only produce a warning).",
	Bad:         `"summaryRef":"outputs/summary.md" never written`,
	Good:        `outputs/summary.md written in the task directory before the report`,
	Run: func(s *conform.Session) conform.Outcome {
		cs := aofCompletions(s)
		if len(cs) == 0 {
			return aofNoCompletion()
		}
		files := map[string]bool{}
		fl := conform.FactAOFFiles.Get(s)
		for _, f := range fl {
			files[f] = true
		}
		taskDir := conform.FactAOFTaskDir.Get(s)
		exists := func(p string) bool {
			p = strings.TrimPrefix(p, "./")
			for _, base := range []string{"", taskDir + "/", strings.Replace(taskDir, "in-progress", "review", 1) + "/", "runs/" + aofTask(s).TaskID + "/"} {
				if files[base+p] {
					return true
				}
			}
			return false
		}
		p := aofCompletion(cs[len(cs)-1].env)
		refs := append([]string{p.SummaryRef.V}, spec.Strings(p.Deliverables)...)
		for _, ref := range refs {
			if ref != "" && !exists(ref) {
				return conform.Outcome{Verdict: conform.Warn, Message: "a file the completion report names does not exist", Expected: ref + " under the task directory", Actual: "missing"}.At(cs[len(cs)-1].r.Seq)
			}
		}
		return conform.Passf("%d referenced files exist", len(refs))
	},
}

// aofCompletion is a completion.report's payload (no member set when the
// payload is no object).
func aofCompletion(env *spec.Envelope) *spec.CompletionReport {
	if env.Completion == nil {
		return &spec.CompletionReport{}
	}
	return env.Completion
}
