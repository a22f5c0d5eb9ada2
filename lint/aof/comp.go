package aof

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// CompBlockers: outcome blocked needs blockers.
	CompBlockers = &lint.Rule{
		ID: "AOF-COMP-001", Title: "outcome blocked needs blockers", Protocol: "aof", Kinds: []string{KindCompletion, KindRunResult}, Severity: lint.Error,
		Spec: "aof-1 §Completion Report Payload",
		Doc: "A completion.report (and the run_result.json written from it) with outcome \"blocked\" lists what blocks the task: " +
			"\"blockers\" is \"Required for blocked outcome\". The task moves to blocked and the blockers are the reason humans see.",
		Bad:  `"payload": {"outcome": "blocked", "blockers": [], ...}`,
		Good: `"payload": {"outcome": "blocked", "blockers": ["Awaiting API key for external service"], ...}`,
		Run:  checkBlockers,
	}
	// CompTests: passed + failed <= total.
	CompTests = &lint.Rule{
		ID: "AOF-COMP-002", Title: "tests.passed + tests.failed must not exceed tests.total", Protocol: "aof", Kinds: []string{KindCompletion, KindRunResult}, Severity: lint.Error,
		Spec: "aof-1 §Completion Report Payload (TestReport)",
		Doc: "The test report counts tests: total, of which passed and of which failed. More passed and failed tests than tests in " +
			"total is a miscount (the upstream schema rejects it: \"passed + failed must not exceed total\").",
		Bad:  `"tests": {"total": 3, "passed": 3, "failed": 1}`,
		Good: `"tests": {"total": 4, "passed": 3, "failed": 1}`,
		Run:  checkTests,
	}
)

var compRules = []*lint.Rule{CompBlockers, CompTests}

func checkBlockers(p *lint.Pass) {
	base := payloadBase(p.Msg.Kind)
	obj := p.Member(base)
	if obj.Get("outcome").String() != "blocked" {
		return
	}
	b := obj.Get("blockers")
	switch {
	case b == nil:
		p.Reportf(base+"/blockers", "outcome \"blocked\" requires \"blockers\", the list of what blocks the task, such as [\"Awaiting API key\"]")
	case b.Kind == jsonread.Array && len(b.Items) == 0:
		p.Reportf(base+"/blockers", "outcome \"blocked\" with an empty blockers list: name what blocks the task, such as [\"Awaiting API key\"]")
	}
}

func checkTests(p *lint.Pass) {
	base := payloadBase(p.Msg.Kind)
	tests := p.Member(base).Get("tests")
	total, ok1 := tests.Get("total").Int()
	passed, ok2 := tests.Get("passed").Int()
	failed, ok3 := tests.Get("failed").Int()
	if !ok1 || !ok2 || !ok3 {
		return // schema: required / type
	}
	if passed+failed > total {
		p.Reportf(base+"/tests", "tests.passed (%d) + tests.failed (%d) = %d exceeds tests.total (%d): total counts every test, passed and failed among them",
			passed, failed, passed+failed, total)
	}
}
