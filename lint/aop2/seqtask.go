package aop2

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/numlit"
	"github.com/aopkit/aopkit/lint/jsonread"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// SeqDelegationDepth: delegation through parent_task_id at most 3 deep.
var SeqDelegationDepth = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-011", Protocol: ID, Severity: lint.Error})

// SeqCheckpoints: checkpoint_results name checkpoints of the TASK.
var SeqCheckpoints = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-012", Protocol: ID, Kinds: kindResponse, Severity: lint.Error})

// SeqBudget: the actual cost stays within the task's budget.
var SeqBudget = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-013", Protocol: ID, Kinds: kindResponse, Severity: lint.Error})

// SeqProgressBackwards: progress percentages do not go backwards.
var SeqProgressBackwards = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-014", Protocol: ID, Severity: lint.Warning})

// SeqDelegationAllowed: no sub-TASK of a task that forbids delegation.
var SeqDelegationAllowed = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-016", Protocol: ID, Severity: lint.Warning})

func init() {
	lint.Register(SeqDelegationDepth, SeqDelegationAllowed, SeqCheckpoints, SeqBudget, SeqProgressBackwards)
}

type depthRef struct {
	id        string
	depth     int
	forbidden bool // constraints.delegation_allowed is false
	w         mark // at task.task_id
	wf        mark // at task.constraints.delegation_allowed
}

// depthChecker follows parent_task_id, for two rules over one table of TASKs
// (the same table each would keep): SEQ-011 (delegation depth), the rule it
// observes under, and SEQ-016 (delegation allowed), which it reports under too.
type depthChecker struct {
	tasks table[depthRef]
}

func (c *depthChecker) observes() msgTypes { return typeTask }

func (c *depthChecker) observe(p *lint.Pass, v *view) {
	if v.typ != "TASK" || v.taskID == "" {
		return
	}
	parent := v.root.Path("task", "parent_task_id").String()
	pr := c.tasks.get(v.names.key(v.sessionID, parent)) // nil when parent is ""
	if parent == v.taskID {
		pr = nil // a task is not its own parent
	}
	var related []lint.Related
	d := aop2spec.DelegationDepth(parent != "", pr != nil, 0)
	if pr != nil {
		d = aop2spec.DelegationDepth(true, true, pr.depth)
	}
	if d > aop2spec.MaxDelegationDepth {
		if pr != nil {
			related = []lint.Related{pr.w.with(fmt.Sprintf("the parent TASK %q at depth %d", pr.id, pr.depth))}
		}
		p.ReportRelatedf(p.Rule.Severity, "/task/parent_task_id", related, "task %q is delegated %d levels deep through parent_task_id %q: delegation depth is at most %d (E_MAX_DEPTH_EXCEEDED, §12)", v.taskID, d, parent, aop2spec.MaxDelegationDepth)
	}
	if pr != nil && pr.forbidden {
		rule := p.Rule
		p.Rule = SeqDelegationAllowed
		wf := pr.wf.with(fmt.Sprintf("the TASK %q forbids delegation", pr.id))
		p.ReportRelatedf(p.Rule.Severity, "/task/parent_task_id", []lint.Related{wf}, "task %q is a sub-task of %q, whose task.constraints.delegation_allowed is false: its executor may not delegate (§2.2)", v.taskID, parent)
		p.Rule = rule
	}
	ref := depthRef{id: v.taskID, depth: d, w: v.taskMark}
	if da := v.root.Path("task", "constraints", "delegation_allowed"); da != nil && da.Kind == jsonread.Bool && !da.Bool {
		ref.forbidden = true
		ref.wf = markAt(p.Msg, "/task/constraints/delegation_allowed")
	}
	*c.tasks.put(v.key) = ref // history: the oldest are forgotten silently
}

func (c *depthChecker) Finish(p *lint.Pass) {}

func (c *depthChecker) reset() { c.tasks.reset() }

// maxCheckpointIDs bounds the checkpoint ids kept per task.
const maxCheckpointIDs = 1000

type checkpoints struct {
	ids map[string]bool // owned; reused with the entry
	id  string
	w   mark
}

type checkpointChecker struct{ tasks table[checkpoints] }

func (c *checkpointChecker) task(p *lint.Pass, v *view) {
	cp := track(p, &c.tasks, v.key)
	if cp.ids == nil || len(cp.ids) > 64 {
		cp.ids = map[string]bool{}
	}
	clear(cp.ids)
	cp.id = v.taskID
	at := taskIDPointer
	if phases := v.root.Get("phases"); phases != nil && phases.Kind == jsonread.Array {
		at = "/phases"
		for _, ph := range phases.Items {
			if cps := ph.Get("checkpoints"); cps != nil && cps.Kind == jsonread.Array {
				for _, it := range cps.Items {
					if id := it.Get("checkpoint_id").String(); id != "" && len(cp.ids) < maxCheckpointIDs {
						cp.ids[v.names.own(id)] = true
					}
				}
			}
		}
	}
	cp.w = v.mark(p.Msg, at)
}

func (c *checkpointChecker) response(p *lint.Pass, v *view) {
	cp := c.tasks.get(v.key)
	if cp == nil {
		return
	}
	c.tasks.del(v.key)
	res := v.root.Get("checkpoint_results")
	if res == nil || res.Kind != jsonread.Array || len(cp.ids) >= maxCheckpointIDs {
		return
	}
	for i, r := range res.Items {
		id := r.Get("checkpoint_id")
		if !id.IsString() || cp.ids[id.Str] {
			continue
		}
		w := cp.w.with(fmt.Sprintf("the TASK %q and its checkpoints", cp.id))
		p.ReportRelatedf(p.Rule.Severity, jsonread.JoinPointer("/checkpoint_results", i, "checkpoint_id"), []lint.Related{w}, "checkpoint_results[%d] reports on checkpoint %q, which the TASK %q never defined (%s)", i, id.Str, v.taskID, defined(cp.ids))
	}
}

func (c *checkpointChecker) Finish(p *lint.Pass) {}

func (c *checkpointChecker) reset() { c.tasks.reset() }

func defined(ids map[string]bool) string {
	if len(ids) == 0 {
		return "it defines no checkpoints"
	}
	list := slices.Sorted(maps.Keys(ids))
	if len(list) > 10 {
		list = append(list[:10], "...")
	}
	return "its checkpoints: " + strings.Join(list, ", ")
}

type budget struct {
	id                 string
	hasCost, hasTokens bool
	costW, tokW        limitWitness
}

// limitWitness is where a TASK sets a limit: task.<where>.<key>, written as text.
type limitWitness struct {
	at         mark
	where, key string // owned
	text       numText
}

func (w limitWitness) related(id string) lint.Related {
	return w.at.with(fmt.Sprintf("the TASK %q sets task.%s.%s %s", id, w.where, w.key, w.text.String()))
}

type budgetChecker struct{ tasks table[budget] }

// over reports whether the number n is over the limit w sets, compared
// exactly (numlit.Cmp): as float64, 2^53+1 tokens are not over a limit of 2^53,
// and 1e999999 is no number.
func over(n *jsonread.Node, w *limitWitness) bool {
	if n == nil || n.Kind != jsonread.Number {
		return false
	}
	c, ok := numlit.Cmp(n.Str, w.text.String())
	return ok && c > 0
}

// shown is the limit for a message, as written (cut past 40 characters).
func (w *limitWitness) shown() string {
	s := w.text.String()
	if len(s) > 40 {
		s = s[:20] + "..." + s[len(s)-17:]
	}
	return s
}

// limitOf reads task.budgets.<key>, else task.constraints.<key>.
func limitOf(m *lint.Message, root *jsonread.Node, key string) (bool, limitWitness) {
	for _, where := range []string{"budgets", "constraints"} {
		n := root.Path("task", where, key)
		if n != nil && n.Kind == jsonread.Number { // compared as written (over)
			return true, limitWitness{at: markNode(m, n, limitPointer(where, key)), where: where, key: key, text: ownNum(n.Str)}
		}
	}
	return false, limitWitness{}
}

// limitPointer is jsonread.JoinPointer("/task", where, key), made once for the limits read here.
func limitPointer(where, key string) string {
	switch {
	case where == "budgets" && key == "max_cost_usd":
		return "/task/budgets/max_cost_usd"
	case where == "budgets" && key == "max_tokens":
		return "/task/budgets/max_tokens"
	case where == "constraints" && key == "max_cost_usd":
		return "/task/constraints/max_cost_usd"
	case where == "constraints" && key == "max_tokens":
		return "/task/constraints/max_tokens"
	}
	return jsonread.JoinPointer("/task", where, key)
}

func (c *budgetChecker) observes() msgTypes { return typesTaskResponse }

func (c *budgetChecker) observe(p *lint.Pass, v *view) {
	switch v.typ {
	case "TASK":
		c.tasks.del(v.key)
		if v.taskID == "" {
			return
		}
		b := budget{id: v.taskID}
		b.hasCost, b.costW = limitOf(p.Msg, v.root, "max_cost_usd")
		b.hasTokens, b.tokW = limitOf(p.Msg, v.root, "max_tokens")
		if b.hasCost || b.hasTokens {
			*track(p, &c.tasks, v.key) = b
		}
	case "RESPONSE":
		b := c.tasks.get(v.key)
		c.tasks.del(v.key)
		if b == nil || v.root.Path("error_details", "error_code").String() == "E_COST_LIMIT_EXCEEDED" {
			return
		}
		ct := v.root.Get("cost_tracking")
		if b.hasCost && over(ct.Get("actual_cost_usd"), &b.costW) {
			p.ReportRelatedf(p.Rule.Severity, "/cost_tracking/actual_cost_usd", []lint.Related{b.costW.related(b.id)}, "actual_cost_usd %s is over the task's max_cost_usd %s: E_COST_LIMIT_EXCEEDED (§12); stop at the budget and report it", ct.Get("actual_cost_usd").Str, b.costW.shown())
		}
		if b.hasTokens && over(ct.Get("tokens_output"), &b.tokW) {
			p.ReportRelatedf(p.Rule.Severity, "/cost_tracking/tokens_output", []lint.Related{b.tokW.related(b.id)}, "tokens_output %s is over the task's max_tokens %s, the most tokens the model may generate: E_COST_LIMIT_EXCEEDED (§12); stop at the budget and report it", ct.Get("tokens_output").Str, b.tokW.shown())
		}
	}
}

func (c *budgetChecker) Finish(p *lint.Pass) {}

func (c *budgetChecker) reset() { c.tasks.reset() }

type lastPct struct {
	v     float64
	event string  // owned
	text  numText // the percentage as written
	w     mark
}

func (l *lastPct) witness() lint.Related {
	return l.w.with(fmt.Sprintf("the %s reporting %s%%", l.event, l.text.String()))
}

type backwardsChecker struct{ tasks table[lastPct] }

func (c *backwardsChecker) observes() msgTypes { return typesMessages }

func (c *backwardsChecker) observe(p *lint.Pass, v *view) {
	switch v.typ {
	case "TASK", "RESPONSE":
		c.tasks.del(v.key)
	case "EVENT":
		at := percentPointer(p.Msg.Kind)
		if at == "" || at == "/progress_log/progress_percentage" {
			return
		}
		n := v.percent // p.Member(at), read in the view's pass over the members
		pct, ok := n.Float()
		if !ok {
			return
		}
		cur := lastPct{v: pct, event: v.event, text: ownNum(n.Str), w: markNode(p.Msg, n, at)}
		prev := c.tasks.get(v.key)
		if prev != nil && pct < prev.v {
			p.ReportRelatedf(p.Rule.Severity, at, []lint.Related{prev.witness()}, "progress of task %q went backwards: %s%% after %g%% (§6)", v.taskID, n.Str, prev.v)
		}
		if prev == nil {
			*track(p, &c.tasks, v.key) = cur
			return
		}
		*prev = cur
	}
}

func (c *backwardsChecker) Finish(p *lint.Pass) {}

func (c *backwardsChecker) reset() { c.tasks.reset() }
