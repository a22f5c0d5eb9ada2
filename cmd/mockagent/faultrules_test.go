package main

import (
	"regexp"
	"testing"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/all"
)

// TestFaultCatalogue: every protocol's faults have unique kebab-case names, a doc,
// and a Rule that starts with the lint rule ID or conform check ID it breaks; every
// lint rule ID a fault names (`mockagent faults` prints them) is a rule aoplint has,
// so the catalogue cannot drift from the linter.
func TestFaultCatalogue(t *testing.T) {
	id := regexp.MustCompile(`\b(GEN|AOP2|AOS|AOPOUT|AOF|ORCH)-[A-Z0-9]+-[0-9]{3}\b`)
	lead := regexp.MustCompile(`^([A-Z][A-Z0-9]*(-[A-Z0-9]+)+|[a-z0-9-]+/[a-z0-9/.-]+)[ ,]`)
	name := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, p := range mockagent.Protocols() {
		a, err := mockagent.Lookup(p)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, f := range a.Faults.List() {
			if seen[f.Name] || !name.MatchString(f.Name) {
				t.Errorf("%s fault %q: duplicate or not kebab-case", p, f.Name)
			}
			seen[f.Name] = true
			if f.Doc == "" || !lead.MatchString(f.Rule) {
				t.Errorf("%s fault %s: needs a doc and a Rule starting with a rule or check ID, got %q", p, f.Name, f.Rule)
			}
			for _, r := range id.FindAllString(f.Rule, -1) {
				if lint.LookupRule(r) == nil {
					t.Errorf("%s fault %s names rule %s, which aoplint does not have", p, f.Name, r)
				}
			}
		}
	}
}
