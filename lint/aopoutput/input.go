package aopoutput

import (
	"github.com/aopkit/aopkit/lint"
)

// InputTaskType: the task line names a task type of the table.
var InputTaskType = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-INPUT-001", Protocol: ID, Kinds: []string{KindTask}, Severity: lint.Error, Run: checkInputTaskType})

func init() { lint.Register(InputTaskType) }

func checkInputTaskType(p *lint.Pass) {
	t := p.Msg.Root.Get("task_type")
	if !t.IsString() {
		return // the schema says so
	}
	if _, ok := TaskTypes[t.Str]; ok {
		return
	}
	p.Reportf("/task_type", "task_type %s is not a task type of the summary-limit table: use one of %s", quote(t.Str), taskTypeNames())
	p.Claim("/task_type")
}
