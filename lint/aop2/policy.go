package aop2

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/numlit"
	"github.com/aopkit/aopkit/lint/jsonread"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// TimeoutPrecedence: guard_rails.timeout_seconds overrides execution_policy.timeout_seconds.
var TimeoutPrecedence = &lint.Rule{
	ID: "AOP2-POLICY-001", Title: "guard_rails timeout overrides execution_policy timeout", Protocol: ID, Kinds: kindTask, Severity: lint.Info,
	Spec: "aop2 §11 Policy Precedence & Effective Access",
	Doc:  "§11: if guard_rails.timeout_seconds is set it overrides execution_policy.timeout_seconds. When both are set to different values the execution_policy value never applies; aoplint says which timeout is effective so nobody tunes the wrong one.",
	Bad:  `{"execution_policy": {"timeout_seconds": 1800}, "guard_rails": {"timeout_seconds": 600}}`,
	Good: `{"execution_policy": {"timeout_seconds": 600}, "guard_rails": {"timeout_seconds": 600}}`,
	Run:  checkTimeoutPrecedence,
}

// BudgetConstraints: task.constraints and task.budgets disagree.
var BudgetConstraints = &lint.Rule{
	ID: "AOP2-POLICY-002", Title: "constraints and budgets disagree", Protocol: ID, Kinds: kindTask, Severity: lint.Warning,
	Spec: "aop2 §2.2 Full Envelope (task.constraints, task.budgets); §12 E_COST_LIMIT_EXCEEDED",
	Doc:  "task.constraints (v2.0.0) and task.budgets (v2.0.2-C cost tracking) can both cap max_cost_usd and max_tokens. The contract's full envelope sets them to the same values. When they disagree, it is unclear which limit triggers E_COST_LIMIT_EXCEEDED: make them equal or drop one.",
	Bad:  `{"task": {..., "constraints": {"max_cost_usd": 0.50}, "budgets": {"max_cost_usd": 2.00}}}`,
	Good: `{"task": {..., "constraints": {"max_cost_usd": 0.50}, "budgets": {"max_cost_usd": 0.50}}}`,
	Run:  checkBudgetConstraints,
}

// FallbackTrigger: alternative_models[].fallback_trigger from §9.
var FallbackTrigger = &lint.Rule{
	ID: "AOP2-POLICY-003", Title: "fallback_trigger is one of the §9 triggers", Protocol: ID, Kinds: kindTask, Severity: lint.Error,
	Spec: "aop2 §9 Model & Agent Routing + Fallback Triggers",
	Doc:  "Every execution_policy.alternative_models entry names when it is used: fallback_trigger is one of TIMEOUT, FIRST_ERROR, CRITICAL_ERROR, ALL_ERRORS, COST_LIMIT_EXCEEDED (§9). Any other value never fires.",
	Bad:  `"alternative_models": [{"provider": "GEMINI", "model": "gemini-2.5-pro", "fallback_trigger": "ON_TIMEOUT"}]`,
	Good: `"alternative_models": [{"provider": "GEMINI", "model": "gemini-2.5-pro", "fallback_trigger": "TIMEOUT"}]`,
	Run:  checkFallbackTriggers,
}

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
