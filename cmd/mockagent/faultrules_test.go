package main

import (
	"regexp"
	"testing"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/all"
)

// TestFaultRulesExist: every lint rule ID a fault names (`mockagent faults` prints
// them) is a rule aoplint has, so the catalogue cannot drift from the linter.
func TestFaultRulesExist(t *testing.T) {
	id := regexp.MustCompile(`\b(GEN|AOP2|AOS|AOPOUT|AOF|ORCH)-[A-Z0-9]+-[0-9]{3}\b`)
	for _, p := range mockagent.Protocols() {
		a, err := mockagent.Lookup(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Faults {
			for _, r := range id.FindAllString(f.Rule, -1) {
				if lint.LookupRule(r) == nil {
					t.Errorf("%s fault %s names rule %s, which aoplint does not have", p, f.Name, r)
				}
			}
		}
	}
}
