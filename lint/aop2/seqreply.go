package aop2

import (
	"fmt"

	"github.com/aopkit/aopkit/lint"
)

// SeqCorrelation: a RESPONSE answers a TASK of the session.
var SeqCorrelation = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-001", Protocol: ID, Severity: lint.Error})

// SeqAfterResponse: no HEARTBEAT or PROGRESS_UPDATE after the task's RESPONSE.
var SeqAfterResponse = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-008", Protocol: ID, Severity: lint.Error})

// SeqDuplicateResponse: one RESPONSE per TASK.
var SeqDuplicateResponse = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-009", Protocol: ID, Severity: lint.Error})

func init() { lint.Register(SeqCorrelation, SeqAfterResponse, SeqDuplicateResponse) }

type taskRef struct {
	session, id string
	w           mark // at the TASK's task_id
	ws          mark // at the TASK's session_id
}

type corrChecker struct {
	tasks   table[taskRef] // by taskKey(session, task_id)
	byID    table[taskRef] // the latest TASK of each task_id, whatever its session (keyed by task_id)
	lastKey string
}

func (c *corrChecker) task(p *lint.Pass, v *view) {
	ref := taskRef{session: v.sessionID, id: v.taskID, w: v.taskMark, ws: v.sessionMark(p.Msg)}
	*c.tasks.put(v.key) = ref // history: the oldest are forgotten silently
	*c.byID.put(v.taskID) = ref
	c.lastKey = v.key
}

func (c *corrChecker) response(p *lint.Pass, v *view) {
	if c.tasks.len() == 0 || v.taskID == "" || !p.Msg.Root.Get("task_id").IsString() {
		return
	}
	if c.tasks.get(v.key) != nil {
		return
	}
	sid := p.Msg.Root.Get("session_id")
	if t := c.byID.get(v.taskID); t != nil {
		if sid.IsString() && sid.Str != t.session {
			ws := t.ws.with(fmt.Sprintf("the TASK %q of session %q", t.id, t.session))
			p.ReportRelatedf(p.Rule.Severity, "/session_id", []lint.Related{ws}, "session_id %q must be %q, the session of the TASK %q it answers (§1.2)", sid.Str, t.session, v.taskID)
		}
		return
	}
	last := c.tasks.get(c.lastKey)
	if last == nil {
		return
	}
	w := last.w.with(fmt.Sprintf("the TASK %q", last.id))
	p.ReportRelatedf(p.Rule.Severity, "/task_id", []lint.Related{w}, "task_id %q answers no TASK of this session; the last TASK sent is %q: a RESPONSE carries the task_id of the TASK it answers (§1.2)", v.taskID, taskOfKey(c.lastKey))
}

func (c *corrChecker) Finish(p *lint.Pass) {}

func (c *corrChecker) reset() {
	c.tasks.reset()
	c.byID.reset()
	c.lastKey = ""
}

type replyRef struct {
	id       string
	w        mark
	reported bool
}

func (r *replyRef) witness() lint.Related { return r.w.with(fmt.Sprintf("the RESPONSE to %q", r.id)) }

// replyChecker follows the RESPONSEs sent, for two rules over one table (the
// same table each would keep): SEQ-008 (events after the RESPONSE), the rule it
// observes under, and SEQ-009 (a second RESPONSE), which it reports under too.
type replyChecker struct {
	done table[replyRef]
}

func (c *replyChecker) observes() msgTypes { return typesMessages }

func (c *replyChecker) observe(p *lint.Pass, v *view) {
	if v.taskID == "" {
		return
	}
	switch v.typ {
	case "TASK":
		c.done.del(v.key) // a new attempt starts over
	case "RESPONSE":
		prev := c.done.get(v.key)
		if prev == nil {
			*c.done.put(v.key) = replyRef{id: v.taskID, w: markAt(p.Msg, "")} // history
			return
		}
		rule := p.Rule
		p.Rule = SeqDuplicateResponse
		p.ReportRelatedf(p.Rule.Severity, "", []lint.Related{prev.witness()}, "a second RESPONSE for task %q: each TASK gets one RESPONSE (§5); send a new TASK (a retry) before answering again", v.taskID)
		p.Rule = rule
	case "EVENT":
		if v.event != "HEARTBEAT" && v.event != "PROGRESS_UPDATE" {
			return
		}
		prev := c.done.get(v.key)
		if prev == nil || prev.reported {
			return
		}
		prev.reported = true
		p.ReportRelatedf(p.Rule.Severity, "/event", []lint.Related{prev.witness()}, "%s for task %q after its RESPONSE: the RESPONSE is the final report (§5), after it the task sends no more HEARTBEAT or PROGRESS_UPDATE events (later ones for this task are not reported)", v.event, v.taskID)
	}
}

func (c *replyChecker) Finish(p *lint.Pass) {}

func (c *replyChecker) reset() { c.done.reset() }

// SeqAgentModel: the RESPONSE's agent is the TASK's target.
var SeqAgentModel = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-015", Protocol: ID, Kinds: kindResponse, Severity: lint.Warning})

func init() { lint.Register(SeqAgentModel) }

type target struct {
	id, provider, model string // owned
	w                   mark
}

type agentChecker struct{ tasks table[target] }

func (c *agentChecker) task(p *lint.Pass, v *view) {
	tg := v.root.Get("target")
	var w mark
	if tg != nil {
		w = markNode(p.Msg, tg, "/target") // the node markAt's walk finds
	} else {
		w = markAt(p.Msg, "/target")
	}
	*track(p, &c.tasks, v.key) = target{id: v.taskID, provider: v.names.own(tg.Get("provider").String()), model: v.names.own(tg.Get("model").String()), w: w}
}

func (c *agentChecker) response(p *lint.Pass, v *view) {
	t := c.tasks.get(v.key)
	ag := v.root.Get("agent")
	if t == nil || !isObject(ag) {
		return
	}
	c.tasks.del(v.key)
	prov, model := ag.Get("provider").String(), ag.Get("model").String()
	if (prov != "" && t.provider != "" && prov != t.provider) || (model != "" && t.model != "" && model != t.model) {
		w := t.w.with(fmt.Sprintf("the TASK %q targets %s/%s", t.id, t.provider, t.model))
		p.ReportRelatedf(p.Rule.Severity, "/agent", []lint.Related{w}, "the RESPONSE reports agent %s/%s, but the TASK %q targets %s/%s: report the provider and model that ran, and leave switching models to the orchestrator's fallback (§9)", prov, model, v.taskID, t.provider, t.model)
	}
}

func (c *agentChecker) Finish(p *lint.Pass) {}

func (c *agentChecker) reset() { c.tasks.reset() }
