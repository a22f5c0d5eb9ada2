package aof

import (
	"github.com/aopkit/aopkit/lint"
)

// SeqAnswer: handoff.accepted/rejected answer a handoff.request for that task.
var SeqAnswer = ruleDocs.Rule(lint.Rule{ID: "AOF-SEQ-002", Protocol: "aof", Severity: lint.Error})

type handoffState struct {
	request lint.Related
	toAgent string
	verdict string // "", KindHandoffAccepted or KindHandoffRejected
	answer  lint.Related
}

type answerChecker struct {
	views    *viewMemo // shared by the group: each message is read once
	requests table[*handoffState]
	seen     int           // messages observed
	pending  *lint.Related // an answer that opened the stream, reported at Finish if more followed
	pendText string
}

func (c *answerChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if m.Protocol == "aof" {
		c.seen++
	}
	v, ok := c.views.of(m)
	if !ok {
		return
	}
	switch v.kind {
	case KindHandoffRequest, KindHandoffInput:
		to := m.Node("/payload/toAgent").String()
		if v.kind == KindHandoffInput {
			to = m.Node("/toAgent").String()
		}
		st, ok := c.requests.Get(v.task)
		if !ok {
			st = &handoffState{}
		}
		st.request, st.toAgent = lint.Witness(m, "/taskId", "the "+v.kind+" delegating "+v.task+" to "+to), c.views.own(to)
		if c.requests.Put(v.task, st) {
			reportCap(p)
		}
	case KindHandoffAccepted, KindHandoffRejected:
		st, ok := c.requests.Get(v.task)
		if !ok {
			text := v.kind + " for " + v.task + " answers no handoff.request: no earlier handoff.request (or inputs/handoff.json) delegated that task; " +
				"the child answers the handoff it received"
			if m.Index == 0 {
				w := lint.Witness(m, "/taskId", "")
				c.pending, c.pendText = &w, text
				return
			}
			p.Reportf("/taskId", "%s", text)
			return
		}
		if st.toAgent != "" && v.from != "" && v.from != st.toAgent {
			p.ReportRelatedf(p.Rule.Severity, "/fromAgent", []lint.Related{st.request},
				"%s for %s comes from %q, but the handoff.request (%s) delegated it to %q: only the child agent answers", v.kind, v.task, v.from, where(p, st.request), st.toAgent)
		}
		if st.verdict != "" && st.verdict != v.kind {
			p.ReportRelatedf(p.Rule.Severity, "/type", []lint.Related{st.answer},
				"%s for %s contradicts the earlier %s (%s): a handoff is answered once", v.kind, v.task, st.verdict, where(p, st.answer))
			return
		}
		if st.verdict == "" {
			st.verdict, st.answer = v.kind, lint.Witness(m, "/type", "the "+v.kind+" for "+v.task)
		}
	}
}

func (c *answerChecker) Finish(p *lint.Pass) {
	if c.pending != nil && c.seen > 1 {
		p.ReportAtf(p.Rule.Severity, *c.pending, nil, "%s", c.pendText)
	}
	c.requests.Release()
}
