package aopoutput

import (
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// MaxTask is the TASK limit of the format ("brief task description, max 50 chars").
const MaxTask = spec.MaxTask

// TaskLength: a brief TASK.
var TaskLength = &lint.Rule{
	ID: "AOPOUT-TASK-001", Title: "TASK empty or over 50 characters", Protocol: ID, Kinds: reportKinds, Severity: lint.Error,
	Spec: specFormat + " ([AOP:TASK] {brief task description, max 50 chars}); §Validation Checklist",
	Doc: "[AOP:TASK] names the task in at most 50 characters, on the marker's line. An empty TASK says nothing; a long " +
		"one belongs in the details file.",
	Bad:  "[AOP:TASK] This task description is deliberately longer than fifty characters total",
	Good: "[AOP:TASK] Search for auth implementations",
	Run:  checkTask,
}

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
