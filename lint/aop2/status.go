package aop2

import "github.com/aopkit/aopkit/lint"

// FinalState: task_status.state agrees with task_status.final_signal.
var FinalState = ruleDocs.Rule(lint.Rule{ID: "AOP2-STATUS-001", Protocol: ID, Kinds: kindResponse, Severity: lint.Warning, Run: checkFinalState})

func init() { lint.Register(FinalState) }

// statesFor lists the states a final_signal goes with.
var statesFor = map[string][]string{
	"SUCCESS":         {"COMPLETED", "SKIPPED"},
	"PARTIAL_SUCCESS": {"COMPLETED", "SKIPPED"},
	"FAILURE":         {"FAILED", "SKIPPED"},
	"ABORTED":         {"ABORTED", "SKIPPED"},
}

func checkFinalState(p *lint.Pass) {
	ts := p.Msg.Root.Get("task_status")
	state, signal := ts.Get("state").String(), ts.Get("final_signal").String()
	ok := statesFor[signal]
	if ok == nil || state == "" || contains(ok, state) {
		return
	}
	switch state {
	case "PENDING", "IN_PROGRESS":
		p.Reportf("/task_status/state", "task_status.state %s says the task is still running, but final_signal %s says it ended: a RESPONSE is the final report; use state %s", state, signal, ok[0])
	case "COMPLETED", "FAILED", "ABORTED":
		p.Reportf("/task_status/state", "task_status.state %s contradicts final_signal %s: use state %s with it, or the final_signal that matches %s", state, signal, ok[0], state)
	}
}
