package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var aop2WithinBudget = &conform.Check{
	ID:          "aop2/12/within-budget",
	Family:      "happy-path",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "aop2 §2.2 budgets, §12 E_COST_LIMIT_EXCEEDED",
	Requirement: "The actual cost stays within task.budgets.max_cost_usd (E_COST_LIMIT_EXCEEDED – budgets / max_cost_usd exceeded).",
	Lint:        []string{"AOP2-SEQ-013"},
	Bad:         `budgets.max_cost_usd 0.5, "actual_cost_usd":1.0`,
	Good:        `"actual_cost_usd":0.18 with a 0.5 budget`,
	Run: func(s *conform.Session) conform.Outcome {
		r, m, bad := aop2Final(s)
		if bad != nil {
			return *bad
		}
		task := aop2Task(s, s.Last().N)
		budgetAt := task.Task.Budgets.MaxCostUSD
		if budgetAt == nil {
			budgetAt = task.Task.Constraints.MaxCostUSD
		}
		if budgetAt == nil {
			return conform.NotTestedf("the TASK sets no budget")
		}
		budget := *budgetAt
		if m.CostTracking == nil || m.CostTracking.ActualCostUSD == nil {
			return conform.Passf("no actual cost reported")
		}
		cost := *m.CostTracking.ActualCostUSD
		if cost > budget {
			return conform.Mismatch("the reported cost exceeds the budget", fmt.Sprintf("actual_cost_usd ≤ %g", budget), fmt.Sprintf("actual_cost_usd = %g", cost)).At(r.Seq)
		}
		return conform.Passf("cost %g within budget %g", cost, budget)
	},
}
