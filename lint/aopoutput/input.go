package aopoutput

import (
	"github.com/aopkit/aopkit/lint"
)

// InputTaskType: the task line names a task type of the table.
var InputTaskType = &lint.Rule{
	ID: "AOPOUT-INPUT-001", Title: "task input names an unknown task type", Protocol: ID, Kinds: []string{KindTask}, Severity: lint.Error,
	Spec: "aop-output-1.0.0 §Summary Length Limits by Task Type; aopkit bindings (aop-output stdin task line)",
	Doc: "Under aopkit's aop-output binding the agent reads one JSON line {\"task\": ..., \"task_type\": ...} on stdin. " +
		"task_type selects the summary limit, so it is one of the table's rows: search (explore), analysis, code " +
		"(code-changes), test (tests, test-results), build (build-output), documentation (docs).",
	Bad:  `{"task": "Analyze API performance bottlenecks", "task_type": "perf"}`,
	Good: `{"task": "Analyze API performance bottlenecks", "task_type": "analysis"}`,
	Run:  checkInputTaskType,
}

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
