package aof

import (
	"github.com/aopkit/aopkit/lint"
)

// SeqCompletion: a completion re-sent with another outcome.
var SeqCompletion = ruleDocs.Rule(lint.Rule{ID: "AOF-SEQ-004", Protocol: "aof", Severity: lint.Error})

type completionState struct {
	outcome string
	at      lint.Related
}

type completionChecker struct {
	views *viewMemo // shared by the group: each message is read once
	done  table[completionState]
}

func (c *completionChecker) Observe(p *lint.Pass) { c.views.observe(p, c.observeView) }

func (c *completionChecker) observeView(p *lint.Pass, v *view) {
	m := p.Msg
	switch v.kind {
	case KindRun:
		c.done.Delete(v.task)
	case KindStatusUpdate:
		if s := m.Node("/payload/status").String(); s == "in-progress" || s == "ready" {
			c.done.Delete(v.task)
		}
	case KindCompletion:
		outcome := m.Node("/payload/outcome").String()
		if outcome == "" {
			return
		}
		prev, ok := c.done.Get(v.task)
		if !ok {
			if c.done.Put(v.task, completionState{c.views.own(outcome), lint.Witness(m, "/payload/outcome", "the first completion.report for "+v.task+", outcome "+outcome)}) {
				reportCap(p)
			}
			return
		}
		if prev.outcome == outcome {
			p.ReportRelatedf(lint.Info, "/payload/outcome", []lint.Related{prev.at},
				"completion.report for %s re-sent with the same outcome %q (first at %s): idempotent, no additional transitions", v.task, outcome, where(p, prev.at))
			return
		}
		p.ReportRelatedf(p.Rule.Severity, "/payload/outcome", []lint.Related{prev.at},
			"completion.report for %s with outcome %q after a completion.report with outcome %q (%s): a completed run is not re-reported "+
				"with another outcome; the task already moved per the first", v.task, outcome, prev.outcome, where(p, prev.at))
	}
}

func (c *completionChecker) Finish(p *lint.Pass) { c.done.Release() }
