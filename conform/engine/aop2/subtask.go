package aop2

import (
	"time"
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
	m := model{Provider: t.Provider, Model: t.Model}
	line := t.dispatch(m.Provider, m.Model, 1, t.Priority, e.ws)
	st := &attemptState{m: m, hbActive: t.Policy.Heartbeat, sub: true}
	outcome := e.runExecutor(time.Now(), line, 1, st)
	d := &e.res.Delegations[i]
	d.Run = st.n
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
