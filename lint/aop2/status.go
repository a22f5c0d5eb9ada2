package aop2

import "github.com/aopkit/aopkit/lint"

// FinalState: task_status.state agrees with task_status.final_signal.
var FinalState = &lint.Rule{
	ID: "AOP2-STATUS-001", Title: "task_status.state agrees with final_signal", Protocol: ID, Kinds: kindResponse, Severity: lint.Warning,
	Spec: "aop2 §5 Executor Response (task_status); §1.2 Message Types",
	Doc: "A RESPONSE is the executor's final report: its task_status.final_signal (SUCCESS, PARTIAL_SUCCESS, FAILURE, ABORTED) says how the task ended, and task_status.state should say the same. " +
		"A final_signal beside a state that is not terminal (PENDING, IN_PROGRESS), or beside a terminal state that contradicts it (SUCCESS with FAILED, FAILURE with COMPLETED, ...), leaves the orchestrator with two answers. " +
		"The contract lists both enums (as in v2.0.0) without a table linking them, so this is a warning: COMPLETED goes with SUCCESS or PARTIAL_SUCCESS, FAILED with FAILURE, ABORTED with ABORTED; SKIPPED with any.",
	Bad:  `"task_status": {"state": "IN_PROGRESS", "final_signal": "SUCCESS", "message": "Task completed successfully."}`,
	Good: `"task_status": {"state": "COMPLETED", "final_signal": "SUCCESS", "message": "Task completed successfully."}`,
	Run:  checkFinalState,
}

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
