package aop2

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/numlit"
	"github.com/aopkit/aopkit/lint/jsonread"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// TimeoutPrecedence: guard_rails.timeout_seconds overrides execution_policy.timeout_seconds.
var TimeoutPrecedence = ruleDocs.Rule(lint.Rule{ID: "AOP2-POLICY-001", Protocol: ID, Kinds: kindTask, Severity: lint.Info, Run: checkTimeoutPrecedence})

// BudgetConstraints: task.constraints and task.budgets disagree.
var BudgetConstraints = ruleDocs.Rule(lint.Rule{ID: "AOP2-POLICY-002", Protocol: ID, Kinds: kindTask, Severity: lint.Warning, Run: checkBudgetConstraints})

// FallbackTrigger: alternative_models[].fallback_trigger from §9.
var FallbackTrigger = ruleDocs.Rule(lint.Rule{ID: "AOP2-POLICY-003", Protocol: ID, Kinds: kindTask, Severity: lint.Error, Run: checkFallbackTriggers})

var fallbackTriggers = []string{"TIMEOUT", "FIRST_ERROR", "CRITICAL_ERROR", "ALL_ERRORS", "COST_LIMIT_EXCEEDED"}

func init() { lint.Register(TimeoutPrecedence, BudgetConstraints, FallbackTrigger) }

func checkTimeoutPrecedence(p *lint.Pass) {
	root := p.Msg.Root
	gr, ep := floatPtr(root.Path("guard_rails", "timeout_seconds")), floatPtr(root.Path("execution_policy", "timeout_seconds"))
	// The effective timeout is lint/spec/aop2's: reported when it is guard_rails'
	// and execution_policy says otherwise.
	if _, from := aop2spec.EffectiveTimeout(gr, ep); from == aop2spec.FromGuardRails && ep != nil && *gr != *ep {
		p.Reportf("/guard_rails/timeout_seconds", "guard_rails.timeout_seconds %s overrides execution_policy.timeout_seconds %s: the effective timeout is %s s (§11)",
			root.Path("guard_rails", "timeout_seconds").Str, root.Path("execution_policy", "timeout_seconds").Str, root.Path("guard_rails", "timeout_seconds").Str)
	}
}

func checkBudgetConstraints(p *lint.Pass) {
	task := p.Msg.Root.Get("task")
	c, b := task.Get("constraints"), task.Get("budgets")
	if !isObject(c) || !isObject(b) {
		return
	}
	for _, key := range []string{"max_cost_usd", "max_tokens"} {
		cn, bn := c.Get(key), b.Get(key)
		// Exactly (numlit.Cmp): 2^53+1 and 2^53 tokens are one float64.
		if c, ok := cmpNumbers(cn, bn); ok && c != 0 {
			p.Reportf(jsonread.JoinPointer("/task/budgets", key), "task.budgets.%s %s disagrees with task.constraints.%s %s: it is unclear which limit raises E_COST_LIMIT_EXCEEDED; set them equal or keep one", key, bn.Str, key, cn.Str)
		}
	}
}

func checkFallbackTriggers(p *lint.Pass) {
	alts := p.Msg.Root.Path("execution_policy", "alternative_models")
	if alts == nil || alts.Kind != jsonread.Array {
		return
	}
	for i, a := range alts.Items {
		if !isObject(a) {
			continue
		}
		at := jsonread.JoinPointer("/execution_policy/alternative_models", i, "fallback_trigger")
		t := a.Get("fallback_trigger")
		switch {
		case t == nil:
			p.Claim(at)
			p.Reportf(jsonread.JoinPointer("/execution_policy/alternative_models", i), "alternative_models[%d] needs fallback_trigger, one of %s (§9)", i, quoteList(fallbackTriggers))
		case !t.IsString() || !contains(fallbackTriggers, t.Str):
			p.Claim(at)
			p.Reportf(at, "fallback_trigger %s is not one of %s (§9)", describe(t), quoteList(fallbackTriggers))
		}
	}
}

// cmpNumbers compares two number nodes exactly; ok is false unless both are
// numbers.
func cmpNumbers(a, b *jsonread.Node) (int, bool) {
	if a == nil || b == nil || a.Kind != jsonread.Number || b.Kind != jsonread.Number {
		return 0, false
	}
	return numlit.Cmp(a.Str, b.Str)
}
