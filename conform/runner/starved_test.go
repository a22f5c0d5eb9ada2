package runner

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// TestMergeStarvedRuns: a timing miss no larger than the implementation's own
// wait for a CPU in that run is the machine's. Against a passing run it is a
// PASS with a note; in every run it is HARNESS-ERROR (escalated); a miss larger
// than the wait, or a wait the harness could not read, keeps today's verdicts
// (FLAKY within the tolerance of what the wait leaves unexplained, FAIL beyond
// it); so does a failure with no measured margin.
func TestMergeStarvedRuns(t *testing.T) {
	t.Parallel()
	const timing = "aop2/6.1/heartbeat-interval"
	if c := conform.LookupCheck(timing); c == nil || !c.Timing {
		t.Fatalf("%s is not registered as a timing check", timing)
	}
	miss := func(marginMS, waitMS int64) conform.Result {
		m := marginMS
		return conform.Result{Check: timing, Verdict: conform.Fail, Message: "gap of 1.4s", MarginMS: &m, CPUWaitMS: waitMS}
	}
	pass := conform.Result{Check: timing, Verdict: conform.Pass, Message: "every gap within 1s"}
	opts := Options{Protocol: "aop2", Command: []string{"agent"}}
	for _, tt := range []struct {
		name string
		runs [][]conform.Result
		want conform.Verdict
		note string
	}{
		{"miss within the wait, then a pass", [][]conform.Result{{miss(400, 900)}, {pass}}, conform.Pass, "run 1 missed by 400 ms while it waited 900 ms for a CPU"},
		{"miss just beyond the wait, then a pass", [][]conform.Result{{miss(400, 380)}, {pass}}, conform.Flaky, "FLAKY"},
		{"miss far beyond the wait, then a pass", [][]conform.Result{{miss(400, 300)}, {pass}}, conform.Fail, "beyond the timing tolerance"},
		{"no wait read, then a pass", [][]conform.Result{{miss(40, 0)}, {pass}}, conform.Flaky, "FLAKY"},
		{"miss within the wait in every run", [][]conform.Result{{miss(400, 900)}, {miss(500, 700)}}, conform.HarnessError, "waited 700 ms for a CPU"},
		{"one miss beyond its wait", [][]conform.Result{{miss(400, 900)}, {miss(500, 100)}}, conform.Fail, "failed in 2 of 2 runs"},
		{"no margin (deadline)", [][]conform.Result{{{Check: timing, Verdict: conform.Fail, Message: "no HEARTBEAT", CPUWaitMS: 5000}}, {pass}}, conform.Flaky, "FLAKY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mergeRuns(opts, tt.runs, make([]int64, len(tt.runs)), false)
			if len(got) != 1 || got[0].Verdict != tt.want || !strings.Contains(got[0].Message, tt.note) {
				t.Fatalf("got %+v; want %s with %q", got, tt.want, tt.note)
			}
			if tt.want == conform.Pass && (got[0].Runs != 2 || got[0].Passed != 1 || !strings.Contains(got[0].Message, "gap of 1.4s")) {
				t.Errorf("a PASS must keep the counts and quote the failing run: %+v", got[0])
			}
		})
	}
}
