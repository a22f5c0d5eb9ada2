package aof

import (
	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// validTransition: the task state machine of lint/spec/aof (the reference
// engine's).
func validTransition(from, to string) bool { return spec.ValidTransition(from, to) }

func allowedFrom(from string) string {
	allowed := spec.AllowedFrom(from)
	if len(allowed) == 0 {
		return "none: " + from + " is terminal"
	}
	return quoteList(allowed)
}

// completionTarget is the status a completion outcome leads to (resolveCompletionTransitions).
func completionTarget(outcome string) string {
	ts := spec.CompletionTransitions(spec.InProgress, true, outcome)
	if len(ts) == 0 {
		return ""
	}
	return ts[len(ts)-1]
}

// SeqTransition: status.update transitions follow the state machine.
var SeqTransition = ruleDocs.Rule(lint.Rule{ID: "AOF-SEQ-003", Protocol: "aof", Severity: lint.Error})

type taskStatus struct {
	status string // "" while unknown
	// since is where the task got its status; its text is made from why (owned
	// parts, joined) only when a finding names it.
	since lint.Related
	why   [7]string
}

// sinceWitness is since with its text.
func (st *taskStatus) sinceWitness() lint.Related {
	w := st.since
	w.Message = st.why[0] + st.why[1] + st.why[2] + st.why[3] + st.why[4] + st.why[5] + st.why[6]
	return w
}

type transitionChecker struct {
	views *viewMemo // shared by the group: each message is read once
	tasks table[*taskStatus]
}

func (c *transitionChecker) set(p *lint.Pass, task, status string, w lint.Related, why [7]string) {
	st, ok := c.tasks.Get(task)
	if !ok {
		st = &taskStatus{}
		if c.tasks.Put(task, st) {
			reportCap(p)
		}
	}
	st.status, st.since, st.why = c.views.own(status), w, why
}

func (c *transitionChecker) Observe(p *lint.Pass) { c.views.observe(p, c.observeView) }

func (c *transitionChecker) observeView(p *lint.Pass, v *view) {
	m := p.Msg
	switch v.kind {
	case KindRun:
		c.set(p, v.task, "in-progress", lint.Witness(m, "/startedAt", ""), [7]string{"run.json: the lease put ", v.task, " in progress"})
	case KindHandoffRejected:
		c.set(p, v.task, "blocked", lint.Witness(m, "/type", ""), [7]string{"handoff.rejected blocked ", v.task})
	case KindCompletion, KindRunResult:
		base := payloadBase(v.kind)
		outcome := m.Node(base + "/outcome").String()
		if t := completionTarget(outcome); t != "" {
			if st, ok := c.tasks.Get(v.task); ok && st.status == "done" {
				return // completion on a done task is a no-op
			}
			c.set(p, v.task, t, lint.Witness(m, base+"/outcome", ""), [7]string{v.kind, " outcome ", c.views.own(outcome), " moved ", v.task, " to ", t})
		}
	case KindStatusUpdate:
		target := m.Node("/payload/status").String()
		st, known := c.tasks.Get(v.task)
		if !isTaskStatus(target) && target != "cancelled" {
			if !known {
				// an agent reporting on a task works on it: in progress unless known otherwise
				c.set(p, v.task, "in-progress", lint.Witness(m, "/type", ""), [7]string{"the agent's first message on ", v.task, " (in progress)"})
			}
			return
		}
		if !known {
			c.set(p, v.task, target, lint.Witness(m, "/payload/status", ""), [7]string{"status.update moved ", v.task, " to ", c.views.own(target)})
			return
		}
		if st.status == "" || st.status == target {
			st.status, st.since = c.views.own(target), lint.Witness(m, "/payload/status", "")
			st.why = [7]string{"status.update moved ", v.task, " to ", st.status}
			return
		}
		if !validTransition(st.status, target) {
			p.ReportRelatedf(p.Rule.Severity, "/payload/status", []lint.Related{st.sinceWitness()},
				"status.update asks %s → %s for %s, which the task state machine forbids (from %s the allowed targets are %s); "+
					"the router keeps the task %s and appends a work-log entry instead", st.status, target, v.task, st.status, allowedFrom(st.status), st.status)
			return
		}
		st.status, st.since = c.views.own(target), lint.Witness(m, "/payload/status", "")
		st.why = [7]string{"status.update moved ", v.task, " to ", st.status}
	}
}

func (c *transitionChecker) Finish(p *lint.Pass) { c.tasks.Release() }
