package aop2

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// SeqFinalSignal: require_final_signal → task_status.state and final_signal.
var SeqFinalSignal = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-002", Protocol: ID, Kinds: kindResponse, Severity: lint.Error})

// SeqMinimalReport: require_minimal_report → non-empty summary and actions.
var SeqMinimalReport = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-003", Protocol: ID, Kinds: kindResponse, Severity: lint.Error})

// SeqNoResponse: a TASK requiring a final signal is answered before the session ends.
var SeqNoResponse = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-004", Protocol: ID, Severity: lint.Error})

func init() { lint.Register(SeqFinalSignal, SeqMinimalReport, SeqNoResponse) }

// guardRail reads guard_rails.<key>: its value (default true, as in v2.0.0), whether
// it was explicit, the pointer to cite and, when explicit, the node there.
func guardRail(root *jsonread.Node, key string) (on, explicit bool, at string, n *jsonread.Node) {
	n = root.Path("guard_rails", key)
	if n != nil && n.Kind == jsonread.Bool {
		return n.Bool, true, guardRailPointer(key), n
	}
	return true, false, taskIDPointer, nil
}

// railMark marks a guard rail as guardRail found it: at its node n, else (at
// the TASK's task_id) as the view does.
func railMark(m *lint.Message, v *view, at string, n *jsonread.Node) mark {
	if n != nil {
		return markNode(m, n, at)
	}
	return v.mark(m, at)
}

// guardRailPointer is "/guard_rails/" + key, made once per key.
func guardRailPointer(key string) string {
	switch key {
	case "require_final_signal":
		return "/guard_rails/require_final_signal"
	case "require_minimal_report":
		return "/guard_rails/require_minimal_report"
	}
	return "/guard_rails/" + key
}

type rails struct {
	on, explicit bool
	id           string // the TASK's task_id
	at           mark
}

// railsChecker applies both guard rails of a TASK to its RESPONSE, over one
// table of TASKs (the same table each rule would keep): require_final_signal
// (SEQ-002, the rule it observes under) and require_minimal_report (SEQ-003),
// which it reports under too.
type railsChecker struct {
	tasks table[[2]rails] // by railRules
}

// railRules are the rules of railsChecker, in the order of its entries.
var railRules = [2]struct {
	rule  *lint.Rule
	final bool
}{{SeqFinalSignal, true}, {SeqMinimalReport, false}}

// railKey is the guard rail of final (SEQ-002) or not (SEQ-003).
func railKey(final bool) string {
	if final {
		return "require_final_signal"
	}
	return "require_minimal_report"
}

// railWitness names the TASK r for a diagnostic.
func railWitness(r *rails, final bool) lint.Related {
	if r.explicit {
		return r.at.with(fmt.Sprintf("the TASK %q sets guard_rails.%s", r.id, railKey(final)))
	}
	return r.at.with(fmt.Sprintf("the TASK %q (guard_rails.%s is true by default)", r.id, railKey(final)))
}

func (c *railsChecker) task(p *lint.Pass, v *view) {
	e, first := c.tasks.add(v.key)
	rule := p.Rule
	for i, r := range railRules {
		p.Rule = r.rule
		if first {
			capNote(p) // each rule's, as track makes it
		}
		on, explicit, at, n := guardRail(v.root, railKey(r.final))
		e[i] = rails{on: on, explicit: explicit, id: v.taskID, at: railMark(p.Msg, v, at, n)}
	}
	p.Rule = rule
}

func (c *railsChecker) response(p *lint.Pass, v *view) {
	var e [2]rails
	found := false
	if r := c.tasks.get(v.key); r != nil {
		e, found = *r, true
		c.tasks.del(v.key)
	}
	rule := p.Rule
	for i, r := range railRules {
		p.Rule = r.rule
		checkRail(p, r.final, found, &e[i])
	}
	p.Rule = rule
}

// checkRail applies the guard rail of final (SEQ-002) or not (SEQ-003) to a
// RESPONSE, under p's rule; found says whether its TASK was seen (r).
func checkRail(p *lint.Pass, final, found bool, r *rails) {
	sev, why, related := lint.Error, "", []lint.Related(nil)
	if found {
		if !r.on {
			return
		}
		if !railFails(p, final) {
			return // the common case: no diagnostic, so no text
		}
		related = []lint.Related{railWitness(r, final)}
		if r.explicit {
			why = fmt.Sprintf("the TASK's guard_rails.%s is true", railKey(final))
		} else {
			why = fmt.Sprintf("the TASK has no guard_rails.%s, which defaults to true (v2.0.0)", railKey(final))
		}
	} else {
		if !railFails(p, final) {
			return
		}
		sev = lint.Warning
		why = fmt.Sprintf("no TASK in this input says otherwise, and guard_rails.%s defaults to true (v2.0.0)", railKey(final))
	}
	if final {
		checkFinalSignal(p, sev, why, related)
	} else {
		checkMinimalReport(p, sev, why, related)
	}
}

// railFails reports whether the RESPONSE breaks the guard rail of final:
// whether checkFinalSignal or checkMinimalReport will report.
func railFails(p *lint.Pass, final bool) bool {
	if final {
		ts := p.Msg.Root.Get("task_status")
		return isObject(ts) && (blankSignal(ts.Get("state")) || blankSignal(ts.Get("final_signal")))
	}
	es := p.Msg.Root.Get("execution_summary")
	if !isObject(es) {
		return true
	}
	s, a := es.Get("summary"), es.Get("actions")
	return !s.IsString() || strings.TrimSpace(s.Str) == "" || a == nil || a.Kind != jsonread.Array || len(a.Items) == 0
}

// blankSignal is a task_status member that says nothing: absent, blank or null.
func blankSignal(n *jsonread.Node) bool {
	return n == nil || (n.IsString() && strings.TrimSpace(n.Str) == "") || n.Kind == jsonread.Null
}

func (c *railsChecker) Finish(p *lint.Pass) {}

func (c *railsChecker) reset() { c.tasks.reset() }

func checkFinalSignal(p *lint.Pass, sev lint.Severity, why string, related []lint.Related) {
	ts := p.Msg.Root.Get("task_status")
	if !isObject(ts) {
		return // AOP2-ENVELOPE-005
	}
	var missing []string
	at := ""
	for _, k := range []string{"state", "final_signal"} {
		if blankSignal(ts.Get(k)) {
			missing = append(missing, "task_status."+k)
			if at == "" {
				at = "/task_status/" + k
			}
		}
	}
	if len(missing) == 0 {
		return
	}
	p.ReportRelatedf(sev, at, related, "%s missing: %s, so the RESPONSE must carry task_status.state and task_status.final_signal (§5), such as \"final_signal\": \"SUCCESS\"", strings.Join(missing, " and ")+isAre(len(missing)), why)
}

func isAre(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

func checkMinimalReport(p *lint.Pass, sev lint.Severity, why string, related []lint.Related) {
	es := p.Msg.Root.Get("execution_summary")
	if !isObject(es) {
		p.ReportRelatedf(sev, "/execution_summary", related, "execution_summary is missing: %s, so the RESPONSE must have a non-empty execution_summary.summary and actions (§5)", why)
		return
	}
	var missing []string
	at := ""
	if s := es.Get("summary"); !s.IsString() || strings.TrimSpace(s.Str) == "" {
		missing = append(missing, "execution_summary.summary")
		at = "/execution_summary/summary"
	}
	if a := es.Get("actions"); a == nil || a.Kind != jsonread.Array || len(a.Items) == 0 {
		missing = append(missing, "execution_summary.actions")
		if at == "" {
			at = "/execution_summary/actions"
		}
	}
	if len(missing) == 0 {
		return
	}
	p.ReportRelatedf(sev, at, related, "%s empty or missing: %s, so the RESPONSE must have a non-empty summary and at least one action (§5)", strings.Join(missing, " and ")+isAre(len(missing)), why)
}

type pending struct {
	id          string // the TASK's task_id
	at          mark   // where a report about it stands
	transcript  bool   // the record said the orchestrator sent it
	seenAtStart int    // non-TASK messages seen before the TASK
	cancelled   bool   // the harness stopped the agent before it answered
}

// pendingChecker follows TASKs that require a final signal until their RESPONSE.
// A RESPONSE whose task_id names no open TASK (AOP2-SEQ-001's finding) is taken as
// the answer to the oldest open one: the session did not end without a RESPONSE.
type pendingChecker struct {
	tasks    table[pending]
	answered table[struct{}]
	session  *session // the group's: the messages other than TASKs so far
	orphans  int
	hung     bool // the harness recorded a scenario-deadline timeout
}

func (c *pendingChecker) observes() msgTypes {
	return typesTaskResponse | typeOther // harness records: a cancelled TASK
}

func (c *pendingChecker) observe(p *lint.Pass, v *view) {
	switch v.typ {
	case "harness":
		// The orchestrator stopped the agent (a scripted SIGTERM or kill, EOF on its
		// stdin): the TASK was cancelled, no RESPONSE is owed. A stop at the
		// scenario deadline is the agent hanging, not a cancellation.
		switch v.event {
		case "timeout":
			c.hung = true
		case "signal", "kill", "close-stdin":
			if !c.hung {
				c.tasks.each(func(_ string, t *pending) { t.cancelled = true })
			}
		}
	case "TASK":
		if v.taskID == "" || v.delegated() {
			return // a TASK the agent delegates is answered elsewhere
		}
		on, _, at, n := guardRail(v.root, "require_final_signal")
		if !on {
			c.tasks.del(v.key)
			return
		}
		c.tasks.del(v.key)
		*track(p, &c.tasks, v.key) = pending{id: v.taskID, at: railMark(p.Msg, v, at, n), transcript: v.fromOrch, seenAtStart: c.session.nonTask}
	case "RESPONSE":
		switch {
		case c.tasks.get(v.key) != nil:
			c.tasks.del(v.key)
			c.answered.put(v.key)
		case c.answered.get(v.key) == nil:
			c.orphans++
		}
	}
}

func (c *pendingChecker) Finish(p *lint.Pass) {
	c.tasks.each(func(_ string, t *pending) {
		if !t.transcript && c.session.nonTask <= t.seenAtStart {
			return // nothing of the agent's side was recorded after the TASK
		}
		if t.cancelled {
			return
		}
		if c.orphans > 0 {
			c.orphans--
			return
		}
		p.ReportAtf(p.Rule.Severity, t.at.with(""), nil, "the session ended without a RESPONSE to the TASK %q, which requires a final signal: the executor must answer it with task_status.state and final_signal (§5)", t.id)
	})
}

func (c *pendingChecker) reset() {
	c.tasks.reset()
	c.answered.reset()
	c.orphans, c.hung = 0, false
}
