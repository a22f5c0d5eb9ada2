package aopoutput

import (
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// MaxTask is the TASK limit of the format ("brief task description, max 50 chars").
const MaxTask = spec.MaxTask

// TaskLength: a brief TASK.
var TaskLength = ruleDocs.Rule(lint.Rule{
	ID: "AOPOUT-TASK-001", Protocol: ID, Kinds: reportKinds, Severity: lint.Error,
	Spec: specFormat + " ([AOP:TASK] {brief task description, max 50 chars}); §Validation Checklist",
	Run:  checkTask,
})

func init() { lint.Register(TaskLength) }

func checkTask(p *lint.Pass) {
	m := parsed(p).First("TASK")
	if m == nil {
		return
	}
	if m.Value != "" && len(m.Value) <= MaxTask {
		return // no more runes than bytes: within the limit, uncounted
	}
	n := utf8.RuneCountInString(m.Value)
	switch {
	case n == 0:
		reportAt(p, lint.Error, m.Off, "/task", "[AOP:TASK] is empty: describe the task on the marker's line in at most %d characters", MaxTask)
	case n > MaxTask:
		reportAt(p, lint.Error, m.ValOff, "/task", "[AOP:TASK] is %d characters, over the limit of %d: shorten it (the full description goes in the details file)", n, MaxTask)
	default:
		return
	}
	p.Claim("/task")
}
