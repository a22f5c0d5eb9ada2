package checks_test

import (
	"slices"
	"testing"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks"
	"github.com/aopkit/aopkit/fixtures/scenarios"
)

// ambientCauses are root causes the reference orchestrator can bring about in
// every scenario of their protocol: the aof scheduler evaluates the heartbeat
// and the deadline of every run. A scenario that judges a consequence of one
// must judge the cause itself, or the consequence fails as a root cause of its
// own there (an aof agent that never refreshes its heartbeat is reclaimed in
// the delegation scenarios too: before they judged aof/heartbeat/fresh, the
// reclaim read as a second failure, aof/completion/reported).
var ambientCauses = []string{"aof/heartbeat/fresh", "aof/run/within-deadline"}

func TestAmbientCausesJudged(t *testing.T) {
	scs, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, cause := range ambientCauses {
		if conform.LookupCheck(cause) == nil {
			t.Fatalf("ambient cause %s is no check", cause)
		}
		for _, sc := range scs {
			if slices.Contains(sc.Checks, cause) {
				continue
			}
			for _, id := range sc.Checks {
				if c := conform.LookupCheck(id); c != nil && slices.Contains(c.After, cause) {
					t.Errorf("scenario %s judges %s, a consequence of %s, but not %s itself", sc.ID, id, cause, cause)
				}
			}
		}
	}
}
