package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// playCheck is fakePlay for any check: script(k, scale) says how run k of the
// check went (its verdict, the harness's slip, whether the run hit the
// scenario deadline, a harness error); margin, when set, is the failing
// verdict's measurement over its limit (ms). Every run's scale is recorded.
func playCheck(played *[]float64, check string, margin int64, script func(k int, scale float64) fakeRun) runFunc {
	return func(_ context.Context, opts Options, sc *conform.Scenario, k int) (conform.ScenarioRun, []conform.Result) {
		*played = append(*played, opts.Scale)
		f := script(k, opts.Scale)
		run := conform.ScenarioRun{ID: sc.ID, Spoke: true, SlipMS: f.slipMS, HarnessError: f.herr, Transcript: transcriptPath(opts.OutDir, sc.ID, k),
			Attempts: []conform.AttemptInfo{{N: 1, TimedOut: f.timedOut}}}
		r := conform.Result{Check: check, Scenario: sc.ID, Level: conform.MAY, Verdict: f.verdict, Message: fmt.Sprintf("run %d: the same decisions", k)}
		if failing(f.verdict) {
			r.Message = fmt.Sprintf("run %d: decided differently", k)
			r.Rerun = RerunCommand(opts, check) // as judge sets it
			if margin > 0 {
				m := margin
				r.MeasuredMS, r.LimitMS, r.MarginMS = 700+m, 700, &m
			}
		}
		return run, []conform.Result{r, {Check: "aop2/6/event-format", Scenario: sc.ID, Verdict: conform.Pass, Message: "ok"}}
	}
}

// TestWarnConfirmed: a WARN that may rest on timing (a timing check's, or any
// check's in a run that hit the scenario deadline) is confirmed, merged and
// escalated as a FAIL is (failing): a WARN that does not reproduce against a
// pass is a PASS with a note of the warning (a FAIL there is FLAKY), one in
// every run stays WARN, one in every run under timer slip beyond the tolerance
// is escalated and, unsettled, HARNESS-ERROR; a WARN whose confirming run
// cannot be played is HARNESS-ERROR. A WARN nothing ties to timing is final at
// once, as a FAIL is.
func TestWarnConfirmed(t *testing.T) {
	t.Parallel()
	const (
		decisions = "aop-output/orch/ref/engine-decisions" // a WARN, not a timing check
		timing    = "aop2/6.1/heartbeat-interval"          // a timing check
	)
	if c := conform.LookupCheck(timing); c == nil || !c.Timing {
		t.Fatalf("%s is not registered as a timing check", timing)
	}
	if c := conform.LookupCheck(decisions); c != nil && c.Timing {
		t.Fatalf("%s is a timing check: the deadline cases below test nothing", decisions)
	}
	warn, pass, fail := conform.Warn, conform.Pass, conform.Fail
	for _, tt := range []struct {
		name      string
		check     string
		margin    int64
		opts      Options
		script    func(k int, scale float64) fakeRun
		want      conform.Verdict
		scales    []float64 // every run's timeout scale, in order
		confirmed bool
		passed    int      // the merged result's passed runs
		msg       []string // in the check's message
	}{
		{"deadline WARN, pass on confirmation: PASS with a note", decisions, 0, Options{}, func(k int, _ float64) fakeRun {
			if k == 1 {
				return fakeRun{verdict: warn, slipMS: 20, timedOut: true}
			}
			return fakeRun{verdict: pass, slipMS: 5}
		}, pass, []float64{1, 1}, true, 1, []string{"run 2: the same decisions (passed in 1 of 2 runs; WARN in 1, not reproduced: a warning that rests on timing; the warning: run 1: decided differently)"}},
		{"the pass first (--repeat 2): PASS with a note", decisions, 0, Options{Repeat: 2}, func(k int, _ float64) fakeRun {
			if k == 2 {
				return fakeRun{verdict: warn, slipMS: 20, timedOut: true}
			}
			return fakeRun{verdict: pass, slipMS: 5}
		}, pass, []float64{1, 1}, false, 1, []string{"run 1: the same decisions (passed in 1 of 2 runs; WARN in 1"}},
		{"timing check's WARN, pass on confirmation: PASS", timing, 0, Options{}, func(k int, _ float64) fakeRun {
			if k == 1 {
				return fakeRun{verdict: warn, slipMS: 20}
			}
			return fakeRun{verdict: pass, slipMS: 5}
		}, pass, []float64{1, 1}, true, 1, []string{"not reproduced"}},
		{"WARN beyond the timing tolerance against a pass: WARN", timing, 300, Options{}, func(k int, _ float64) fakeRun {
			if k == 1 {
				return fakeRun{verdict: warn, slipMS: 20}
			}
			return fakeRun{verdict: pass, slipMS: 5}
		}, warn, []float64{1, 1}, true, 1, []string{"warned in 1 of 2 runs, beyond the timing tolerance: 300 ms over its limit", "(PASS only within 90ms"}},
		{"deadline WARN in both runs: WARN", decisions, 0, Options{}, func(k int, _ float64) fakeRun {
			return fakeRun{verdict: warn, slipMS: 20, timedOut: true}
		}, warn, []float64{1, 1}, true, 0, []string{"warned in 2 of 2 runs: run 1: decided differently"}},
		{"deadline WARN, then FAIL: the FAIL", decisions, 0, Options{}, func(k int, _ float64) fakeRun {
			if k == 1 {
				return fakeRun{verdict: warn, slipMS: 20, timedOut: true}
			}
			return fakeRun{verdict: fail, slipMS: 20, timedOut: true}
		}, fail, []float64{1, 1}, true, 0, []string{"failed in 2 of 2 runs: run 2: decided differently"}},
		{"deadline WARN under slip in every run, WARN at scale within its tolerance: WARN", decisions, 0, Options{}, func(k int, scale float64) fakeRun {
			if scale == 1 {
				return fakeRun{verdict: warn, slipMS: 1150, timedOut: true}
			}
			return fakeRun{verdict: warn, slipMS: 900}
		}, warn, []float64{1, 1, 5}, true, 0, []string{"run 1: decided differently — confirmed at --timeout-scale 5 (run 3)", "late by up to 900 ms, within its tolerance of 2.5s"}},
		{"deadline WARN under slip in every run, pass at scale: HARNESS-ERROR", decisions, 0, Options{}, func(k int, scale float64) fakeRun {
			if scale == 1 {
				return fakeRun{verdict: warn, slipMS: 1150, timedOut: true}
			}
			return fakeRun{verdict: pass, slipMS: 10}
		}, conform.HarnessError, []float64{1, 1, 5}, true, 0, []string{"too slow to judge", "at --timeout-scale 5 (run 3) it passed: a pass at a relaxed timescale is not a pass at the requested one"}},
		{"NoConfirm --repeat 2: WARN under slip is HARNESS-ERROR, no escalation", decisions, 0, Options{Repeat: 2, NoConfirm: true}, func(k int, _ float64) fakeRun {
			return fakeRun{verdict: warn, slipMS: 1150, timedOut: true}
		}, conform.HarnessError, []float64{1, 1}, false, 0, []string{"too slow to judge"}},
		{"the confirming run cannot be played: HARNESS-ERROR", decisions, 0, Options{}, func(k int, _ float64) fakeRun {
			if k == 1 {
				return fakeRun{verdict: warn, slipMS: 20, timedOut: true}
			}
			return fakeRun{verdict: conform.NotTested, herr: "transcript: disk full"}
		}, conform.HarnessError, []float64{1, 1}, false, 0, []string{"WARN in run 1, and the run confirming it could not be played (harness error: transcript: disk full)"}},
		{"a WARN nothing ties to timing: final at once", decisions, 0, Options{}, func(k int, _ float64) fakeRun {
			return fakeRun{verdict: warn, slipMS: 1150}
		}, warn, []float64{1}, false, 0, []string{"run 1: decided differently"}},
		{"NoConfirm: a deadline WARN is final at once", decisions, 0, Options{NoConfirm: true}, func(k int, _ float64) fakeRun {
			return fakeRun{verdict: warn, slipMS: 20, timedOut: true}
		}, warn, []float64{1}, false, 0, []string{"run 1: decided differently"}},
		{"--repeat 2, a WARN nothing ties to timing against a pass: WARN", decisions, 0, Options{Repeat: 2}, func(k int, _ float64) fakeRun {
			if k == 1 {
				return fakeRun{verdict: warn, slipMS: 20}
			}
			return fakeRun{verdict: pass, slipMS: 5}
		}, warn, []float64{1, 1}, false, 1, []string{"warned in 1 of 2 runs: run 1: decided differently"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var played []float64
			opts := tt.opts
			opts.Protocol, opts.Command, opts.OutDir = "aop2", []string{"agent"}, "out"
			if opts.Scale == 0 {
				opts.Scale = 1
			}
			opts.play = playCheck(&played, tt.check, tt.margin, tt.script)
			run, rs := runRepeated(context.Background(), opts, &conform.Scenario{ID: "s", Protocol: "aop2"})
			r := rs[0]
			if r.Verdict != tt.want {
				t.Errorf("%s: %s (%s), want %s", r.Check, r.Verdict, r.Message, tt.want)
			}
			for _, m := range tt.msg {
				if !strings.Contains(r.Message, m) {
					t.Errorf("message %q lacks %q", r.Message, m)
				}
			}
			if rs[1].Verdict != conform.Pass {
				t.Errorf("the other check: %s, want PASS", rs[1].Verdict)
			}
			if !equalFloats(played, tt.scales) {
				t.Errorf("runs at scales %v, want %v", played, tt.scales)
			}
			if run.Confirmed != tt.confirmed {
				t.Errorf("confirmed %v, want %v", run.Confirmed, tt.confirmed)
			}
			// Runs and passed runs count the merged runs at the requested
			// scale (none: a single run's result, or an unconfirmed one).
			runs := len(tt.scales) - len(run.Escalations)
			if !run.Confirmed && tt.opts.Repeat < 2 {
				runs = 0
			}
			if r.Runs != runs || r.Passed != tt.passed {
				t.Errorf("runs %d, passed %d; want %d, %d", r.Runs, r.Passed, runs, tt.passed)
			}
			if r.Verdict == conform.Pass && r.Rerun != "" {
				t.Errorf("a PASS with the warning run's rerun command %q", r.Rerun)
			}
		})
	}
}

// TestFailingVerdicts: the one predicate of what confirmation, merging and
// escalation hold against the party under test.
func TestFailingVerdicts(t *testing.T) {
	t.Parallel()
	for _, v := range []conform.Verdict{conform.Pass, conform.Fail, conform.Warn, conform.NotTested, conform.NotApplicable, conform.NotJudged, conform.Flaky, conform.HarnessError, conform.Skip, conform.Known} {
		if want := v == conform.Fail || v == conform.Warn; failing(v) != want {
			t.Errorf("failing(%s) = %v, want %v", v, failing(v), want)
		}
	}
	warned := []conform.Result{{Check: "aop-output/orch/ref/engine-decisions", Verdict: conform.Warn, Level: conform.MAY}}
	if !needsConfirmation(warned, true, true) {
		t.Error("a WARN in a run that hit the deadline needs a confirmation run")
	}
	if needsConfirmation(warned, false, true) {
		t.Error("a WARN of a check that is no timing check, in a run that did not hit the deadline, needs no confirmation")
	}
	sent := []conform.Result{{Check: "aop2/5/final-signal", Verdict: conform.Warn, Sent: true}}
	if needsConfirmation(sent, true, true) {
		t.Error("a WARN on what the agent sent needs no confirmation run")
	}
}
