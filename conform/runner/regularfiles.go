package runner

import (
	"slices"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/checks"
)

// withRegularFiles adds to ids the regular-files check of the scenario's
// protocol when the harness refused a file the agent controls in it, or when
// --run names the check: a clean agent's results (and scores) do not change.
func withRegularFiles(sc *conform.Scenario, sess *conform.Session, run string, ids []string) []string {
	id := checks.RegularFilesID(sc.Protocol)
	if sess == nil || conform.LookupCheck(id) == nil || slices.Contains(ids, id) {
		return ids
	}
	if len(sess.Events(conform.EventFileRefused)) > 0 || (run != "" && conform.MatchAny(id, run)) {
		return append(append([]string(nil), ids...), id)
	}
	return ids
}
