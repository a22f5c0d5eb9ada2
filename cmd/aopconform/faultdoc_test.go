package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/mockagent"
)

// TestFaultRulesNameFailingChecks: a mockagent fault's Rule (what `mockagent
// faults` prints as the rule it breaks) names conform checks that exist, and
// at least one of them is a check the fault's run fails (FAIL or WARN, the
// matrix's ✗). Written by hand beside the checks, the text drifts when a
// check is renamed or a root cause moves; this holds it to the played
// catalogue (playCatalogue).
func TestFaultRulesNameFailingChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the fault catalogue")
	}
	t.Parallel()
	checkID := regexp.MustCompile(`\b(?:[a-z0-9]+(?:-[a-z0-9]+)*)(?:/[a-z0-9.-]+)+[a-z0-9]\b`)
	rules := map[string]string{}
	for _, p := range protocolsUnderTest(t) {
		ag, _ := mockagent.Lookup(p)
		for _, f := range ag.Faults.List() {
			rules[p+"/"+f.Name] = f.Rule
		}
	}
	for _, j := range playCatalogue(t) {
		if j.hostile || j.rep == nil {
			continue
		}
		name := j.protocol + "/" + j.name
		var named []string
		for _, id := range checkID.FindAllString(rules[name], -1) {
			if !strings.HasPrefix(id, j.protocol+"/") {
				continue // a path or a unit ("10 KB/s"), not one of its checks
			}
			if conform.LookupCheck(id) == nil {
				t.Errorf("%s: its Rule names %s, which is no check", name, id)
				continue
			}
			named = append(named, id)
		}
		if len(named) == 0 {
			continue
		}
		failed := failedChecks(j.rep)
		if !slices.ContainsFunc(named, func(id string) bool { return slices.Contains(failed, id) }) {
			t.Errorf("%s: its Rule names %v, but its run fails %v", name, named, failed)
		}
	}
}
