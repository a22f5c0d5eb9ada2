package aof

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/numlit"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// CompBlockers: outcome blocked needs blockers.
	CompBlockers = ruleDocs.Rule(lint.Rule{
		ID: "AOF-COMP-001", Protocol: "aof", Kinds: []string{KindCompletion, KindRunResult}, Severity: lint.Error,
		Run: checkBlockers,
	})
	// CompTests: passed + failed <= total.
	CompTests = ruleDocs.Rule(lint.Rule{ID: "AOF-COMP-002", Protocol: "aof", Kinds: []string{KindCompletion, KindRunResult}, Severity: lint.Error, Run: checkTests})
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
	totalN, passedN, failedN := tests.Get("total"), tests.Get("passed"), tests.Get("failed")
	total, ok1 := count(totalN)
	passed, ok2 := count(passedN)
	failed, ok3 := count(failedN)
	if !ok1 || !ok2 || !ok3 {
		return // schema: required / type / minimum
	}
	// Exactly, not as float64: 2^53+1 is 2^53 there, and 1e999999 is no float64.
	sum := passed.Add(failed)
	if sum.Cmp(total) > 0 {
		eq := ""
		if s := sum.String(40); s != "" {
			eq = " = " + s
		}
		p.Reportf(base+"/tests", "tests.passed (%s) + tests.failed (%s)%s exceeds tests.total (%s): total counts every test, passed and failed among them",
			shortLit(passedN.Str), shortLit(failedN.Str), eq, shortLit(totalN.Str))
	}
}

// shortLit is a number literal for a message: cut past 40 characters.
func shortLit(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:20] + "..." + s[len(s)-17:]
}

// count reads a count exactly (numlit.ParseCount); ok is false for a node that
// is no integer number of at least 0.
func count(n *jsonread.Node) (numlit.Count, bool) {
	if n == nil || n.Kind != jsonread.Number {
		return numlit.Count{}, false
	}
	return numlit.ParseCount(n.Str)
}
