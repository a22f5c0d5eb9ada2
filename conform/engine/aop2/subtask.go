package aop2

import (
	"encoding/json"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// queuedSub is an accepted sub-task waiting for its dispatch.
type queuedSub struct {
	index int // into Result.Delegations
	task  *Task
}

// runSubTasks dispatches the accepted sub-tasks (§10) once the scenario's task has
// ended, one after the other in the order they were accepted: each runs in its
// own executor process with the sub-TASK on stdin, under the sub-task's own
// effective timeout and heartbeat policy (§11, §6.1), and its RESPONSE is judged
// against the sub-TASK. Sub-tasks a sub-task sends go through handleDelegation
// like any other (depth from e.known, the sending sub-task's delegation_allowed
// and effective access) and are queued behind. A session that aborted dispatches
// none: their nodes are SKIPPED with E_DEPENDENCY_FAILED.
func (e *engine) runSubTasks() {
	root := e.task
	defer func() { e.task = root }()
	for len(e.subs) > 0 {
		q := e.subs[0]
		e.subs = e.subs[1:]
		d := &e.res.Delegations[q.index]
		if e.err != nil || e.res.State == "ABORTED" {
			d.State, d.Code = "SKIPPED", "E_DEPENDENCY_FAILED"
			e.code("E_DEPENDENCY_FAILED", 0, false, "sub-task %s not dispatched: the session ended %s", d.TaskID, orDefault(e.res.State, "with a harness error"))
			continue
		}
		e.task = q.task
		e.runSubTask(q.index, q.task)
	}
}

// runSubTask runs one accepted sub-task in one executor process (no retries, no
// fallback: the parent executor that delegated it owns its recovery).
// Its run may append to Result.Delegations (the sub-TASKs it sends): the node
// is looked up by index after it.
func (e *engine) runSubTask(i int, t *Task) {
	d := &e.res.Delegations[i]
	m := model{Provider: t.Provider, Model: t.Model}
	line := t.dispatch(m.Provider, m.Model, 1, t.Priority, e.ws)
	var dispatched any
	json.Unmarshal(line, &dispatched)
	e.audit.write(time.Now(), "TASK_DISPATCHED", orchestratorActor, dispatched, 1, []string{"PAYLOAD_LIMIT", "TIMEOUT"}, "ALLOWED", "", nil)
	a, out := e.launch(line)
	if a == nil {
		d.State = "ABORTED"
		if out == outHarness {
			d.State = "SKIPPED"
		}
		return
	}
	st := &attemptState{n: a.Attempt().N, m: m, hbActive: t.Policy.Heartbeat, sub: true}
	d.Run = st.n
	if err := a.Send(line); err != nil {
		e.violation("aop2/bind/read-task", st.n, "the executor did not read its sub-TASK: %v", err)
	}
	outcome := e.watch(a, st, func(r conform.Record) { e.handleLine(st, r) }, func(att *conform.Attempt) string { return e.outcome(st, att) })
	d = &e.res.Delegations[i]
	switch outcome {
	case outSuccess:
		d.State, d.FinalSignal = "COMPLETED", st.view.Signal
	case outCancelled, outNoTime:
		d.State = "ABORTED"
	case outHarness:
		d.State = "SKIPPED"
	default:
		d.State, d.Code = "FAILED", outcome
	}
}
