package orchmsg

import (
	"github.com/aopkit/aopkit/lint"
)

var (
	// SeqCancelled: no progress on a cancelled task.
	SeqCancelled = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-009", Protocol: ID, Severity: lint.Warning})
	// SeqAgentID: one agent per stdio session.
	SeqAgentID = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-010", Protocol: ID, Severity: lint.Warning})
)

func init() { lint.Register(SeqCancelled, SeqAgentID) }

type cancelled struct {
	w        lint.Related
	reported bool
}

type cancelChecker struct {
	f         *msgFacts
	cancelled *window[*cancelled]
}

func (c *cancelChecker) Observe(p *lint.Pass) {
	m := p.Msg
	t := c.f.msgType(m)
	if t != "notify:task-cancelled" && t != "notify:task-assigned" && t != "event:progress" {
		return // the taskId of no other type matters
	}
	task := m.Root.Path("payload", "taskId").String()
	if task == "" {
		return
	}
	switch t {
	case "notify:task-cancelled":
		c.cancelled.put(ownID(task), &cancelled{w: witness(m, "/payload/taskId")})
	case "notify:task-assigned":
		c.cancelled.del(task)
	case "event:progress":
		if c.f.sender(m) != "agent" {
			return
		}
		if cn, ok := c.cancelled.get(task); ok && !cn.reported {
			cn.reported = true
			p.ReportRelatedf(lint.Warning, "/payload/taskId", []lint.Related{cn.w}, "progress reported on task %s after %s cancelled it: stop working on a cancelled task", quote(task), cn.w.Message)
		}
	}
}

func (c *cancelChecker) Finish(*lint.Pass) { c.cancelled.release() }

type agentIDChecker struct {
	f        *msgFacts
	first    string
	w        lint.Related
	reported bool
}

func (c *agentIDChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if m == nil || c.reported {
		return
	}
	if m.Kind == "harness:agent-start" && c.first == "" && m.Root != nil {
		// the harness says which agent it started
		if a := m.Root.Path("detail", "agentId"); a.IsString() && a.Str != "" {
			c.first, c.w = ownID(a.Str), lint.Related{Message: "the harness started agent " + quote(a.Str)}
			if m.Pos != nil {
				c.w = lint.Witness(m, "/detail/agentId", c.w.Message)
			}
		}
		return
	}
	if !c.f.isMsg(m) || (m.From != "agent" && m.From != "orchestrator") {
		return
	}
	a := m.Root.Get("agentId")
	if !a.IsString() || a.Str == "" {
		return
	}
	if c.first == "" {
		c.first, c.w = ownID(a.Str), witness(m, "/agentId")
		c.w.Message = "agentId " + quote(a.Str) + " in " + c.w.Message
		return
	}
	if a.Str != c.first {
		c.reported = true
		if c.w.Line > 0 {
			p.ReportRelatedf(lint.Warning, "/agentId", []lint.Related{c.w}, "agentId %s, but this session's agent is %s: one stdio session carries one agent's messages", quote(a.Str), quote(c.first))
			return
		}
		p.Reportf("/agentId", "agentId %s, but this session's agent is %s (%s): one stdio session carries one agent's messages", quote(a.Str), quote(c.first), c.w.Message)
	}
}

func (c *agentIDChecker) Finish(*lint.Pass) {}
