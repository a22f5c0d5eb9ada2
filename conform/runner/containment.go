package runner

import (
	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/checks"
)

// checkIDs are the checks a scenario is judged on: its own, and the containment
// check when the launcher reported containment and either the agent was seen
// writing outside its scratch directory or --run names the check. A clean agent's
// results (and scores) are thus the same on kernels with and without Landlock.
func checkIDs(sc *conform.Scenario, sess *conform.Session, run string) []string {
	ids := sc.Checks
	id := checks.ContainmentID(sc.Protocol)
	if sess == nil || conform.LookupCheck(id) == nil {
		return ids
	}
	for _, have := range ids {
		if have == id {
			return ids
		}
	}
	events := sess.Events(conform.EventContainment)
	reported, escaped := len(events) > 0, false
	for _, r := range events {
		_, outside := conform.KeyWritesOutside.Of(r.Detail)
		escaped = escaped || outside
	}
	if reported && (escaped || (run != "" && conform.MatchAny(id, run))) {
		return append(append([]string(nil), ids...), id)
	}
	return ids
}

// selectableIDs are the checks --run/--skip may select in a scenario.
func selectableIDs(sc *conform.Scenario) []string {
	return append(append([]string(nil), sc.Checks...), checks.ContainmentID(sc.Protocol), checks.RegularFilesID(sc.Protocol))
}
