package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/mockagent"
)

// fakeRun is one run a fake play returns: the verdict of the check under test
// (the timing check aop2/6.1/heartbeat-interval, or with plain the non-timing
// aop2/5/final-response) and the harness's slip; timedOut marks a run that hit
// the scenario deadline.
type fakeRun struct {
	verdict  conform.Verdict
	slipMS   int64
	timedOut bool
	herr     string
	plain    bool
}

// fakePlay plays runs by their timeout scale: script(k, scale) says how run k
// went. It records the scale of every run it played.
func fakePlay(played *[]float64, script func(k int, scale float64) fakeRun) runFunc {
	return func(_ context.Context, opts Options, sc *conform.Scenario, k int) (conform.ScenarioRun, []conform.Result) {
		*played = append(*played, opts.Scale)
		f := script(k, opts.Scale)
		run := conform.ScenarioRun{ID: sc.ID, Spoke: true, SlipMS: f.slipMS, HarnessError: f.herr, Transcript: transcriptPath(opts.OutDir, sc.ID, k),
			Attempts: []conform.AttemptInfo{{N: 1, TimedOut: f.timedOut}}}
		r := conform.Result{Check: "aop2/6.1/heartbeat-interval", Scenario: sc.ID, Verdict: f.verdict, Message: "gap"}
		if f.plain {
			r.Check = "aop2/5/final-response"
		}
		if f.verdict == conform.Fail {
			r.Message = "gap of 1.4s"
		}
		return run, []conform.Result{r, {Check: "aop2/6/event-format", Scenario: sc.ID, Verdict: conform.Pass, Message: "ok"}}
	}
}

// TestEscalation: a timing check that failed in every run under timer slip
// beyond the tolerance is played once more at a slower timescale, whose factor
// the slip sets; only a failure there with the slip within the scaled tolerance
// is a FAIL, a pass there is no pass (HARNESS-ERROR), and escalation is bounded.
func TestEscalation(t *testing.T) {
	t.Parallel()
	const id = "aop2/6.1/heartbeat-interval"
	if c := conform.LookupCheck(id); c == nil || !c.Timing {
		t.Fatalf("%s is not registered as a timing check", id)
	}
	fail, pass := conform.Fail, conform.Pass
	for _, tt := range []struct {
		name   string
		opts   Options
		script func(k int, scale float64) fakeRun
		want   conform.Verdict
		scales []float64 // every run's timeout scale, in order
		msg    []string  // in the check's message
	}{
		{"fail under slip, fail at scale: FAIL", Options{}, func(k int, scale float64) fakeRun {
			if scale == 1 {
				return fakeRun{fail, 1150, false, "", false}
			}
			return fakeRun{fail, 900, false, "", false} // within 500 ms × 5
		}, fail, []float64{1, 1, 5}, []string{"gap of 1.4s — confirmed at --timeout-scale 5 (run 3)", "late by up to 900 ms, within its tolerance of 2.5s", "by up to 1150 ms"}},
		{"fail under slip, pass at scale: HARNESS-ERROR", Options{}, func(k int, scale float64) fakeRun {
			if scale == 1 {
				return fakeRun{fail, 1150, false, "", false}
			}
			return fakeRun{pass, 10, false, "", false}
		}, conform.HarnessError, []float64{1, 1, 5}, []string{"at --timeout-scale 5 (run 3) it passed: a pass at a relaxed timescale is not a pass at the requested one"}},
		{"fail under slip, not judged at scale: HARNESS-ERROR", Options{}, func(k int, scale float64) fakeRun {
			if scale == 1 {
				return fakeRun{fail, 1150, false, "", false}
			}
			return fakeRun{conform.NotTested, 10, false, "", false}
		}, conform.HarnessError, []float64{1, 1, 5}, []string{"at --timeout-scale 5 (run 3) it was NOT-TESTED: no failure confirmed"}},
		{"slip beyond the tolerance at scale too: escalated twice, then HARNESS-ERROR", Options{}, func(k int, scale float64) fakeRun {
			// 600 ms at 1: × 3 (1200 ≤ 1500); 5400 ms at 3: × 2 (the room left, 8/3), not × 8.
			return fakeRun{fail, int64(600 * scale * scale), false, "", false}
		}, conform.HarnessError, []float64{1, 1, 3, 6}, []string{"at --timeout-scale 3 (run 3) it failed again", "at --timeout-scale 6 (run 4) it failed again, the harness's timers late by up to 21600 ms there too (tolerance 3s)"}},
		{"the factor is capped: no second escalation beyond 8", Options{}, func(k int, scale float64) fakeRun {
			return fakeRun{fail, 5000, false, "", false}
		}, conform.HarnessError, []float64{1, 1, 8}, []string{"at --timeout-scale 8 (run 3) it failed again"}},
		{"slip within the tolerance: FAIL, no escalation", Options{}, func(k int, scale float64) fakeRun {
			return fakeRun{fail, 400, false, "", false}
		}, fail, []float64{1, 1}, []string{"failed in 2 of 2 runs: gap of 1.4s"}},
		{"the scale given is the base: 3 × 2", Options{Scale: 3}, func(k int, scale float64) fakeRun {
			if scale == 3 {
				return fakeRun{fail, 1600, false, "", false} // tolerance 1.5 s; × ceil(3200 / 1500) = 3
			}
			return fakeRun{fail, 100, false, "", false}
		}, fail, []float64{3, 3, 9}, []string{"confirmed at --timeout-scale 9 (run 3)", "more than 1.5s in every run"}},
		{"--repeat 3: the escalation is run 4", Options{Repeat: 3}, func(k int, scale float64) fakeRun {
			if scale == 1 {
				return fakeRun{fail, 700, false, "", false}
			}
			return fakeRun{fail, 100, false, "", false}
		}, fail, []float64{1, 1, 1, 3}, []string{"confirmed at --timeout-scale 3 (run 4)"}},
		{"NoConfirm: no escalation", Options{Repeat: 2, NoConfirm: true}, func(k int, scale float64) fakeRun {
			return fakeRun{fail, 1150, false, "", false}
		}, conform.HarnessError, []float64{1, 1}, []string{"too slow to judge"}},
		{"a failure no timing explains at scale: FAIL", Options{}, func(k int, scale float64) fakeRun {
			if scale == 1 {
				return fakeRun{fail, 1150, true, "", true} // in a run that hit its deadline
			}
			return fakeRun{fail, 5000, false, "", true} // beyond 2.5 s, but not cut short by a deadline
		}, fail, []float64{1, 1, 5}, []string{"confirmed at --timeout-scale 5 (run 3), a failure no timing explains"}},
		{"the escalation cannot be played: HARNESS-ERROR", Options{}, func(k int, scale float64) fakeRun {
			if scale == 1 {
				return fakeRun{fail, 1150, false, "", false}
			}
			return fakeRun{herr: "transcript: disk full"}
		}, conform.HarnessError, []float64{1, 1, 5}, []string{"at --timeout-scale 5 (run 3) the harness could not play the scenario: transcript: disk full"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var played []float64
			opts := tt.opts
			opts.Protocol, opts.Command, opts.OutDir = "aop2", []string{"agent"}, "out"
			if opts.Scale == 0 {
				opts.Scale = 1
			}
			opts.play = fakePlay(&played, tt.script)
			run, rs := runRepeated(context.Background(), opts, &conform.Scenario{ID: "s", Protocol: "aop2"})
			r := rs[0]
			if r.Verdict != tt.want {
				t.Errorf("%s: %s (%s), want %s", r.Check, r.Verdict, r.Message, tt.want)
			}
			if rs[1].Verdict != conform.Pass {
				t.Errorf("the other check: %s, want PASS", rs[1].Verdict)
			}
			if !equalFloats(played, tt.scales) {
				t.Errorf("runs at scales %v, want %v", played, tt.scales)
			}
			for _, m := range tt.msg {
				if !strings.Contains(r.Message, m) {
					t.Errorf("message %q lacks %q", r.Message, m)
				}
			}
			// Every escalation is in the scenario's run, with its transcript;
			// the result names the last one's scale; runs count the requested
			// scale's only.
			base := len(tt.scales) - len(run.Escalations)
			for i, e := range run.Escalations {
				if e.Run != base+i+1 || e.TimeoutScale != tt.scales[base+i] || e.Transcript != transcriptPath("out", "s", e.Run) {
					t.Errorf("escalation %d: %+v", i, e)
				}
			}
			if sum := scenarioSummary(run, rs); !strings.Contains(sum, "1 "+string(tt.want)) || (len(run.Escalations) > 0 && !strings.Contains(sum, fmt.Sprintf("; run %d at --timeout-scale %v", run.Escalations[0].Run, run.Escalations[0].TimeoutScale))) {
				t.Errorf("progress line %q", sum)
			}
			if len(run.Escalations) > 0 && (r.EscalatedScale != run.Escalations[len(run.Escalations)-1].TimeoutScale || r.Runs != base) {
				t.Errorf("escalated scale %v, runs %d; want %v, %d", r.EscalatedScale, r.Runs, run.Escalations[len(run.Escalations)-1].TimeoutScale, base)
			}
			if len(run.Escalations) == 0 && r.EscalatedScale != 0 {
				t.Errorf("escalated scale %v without an escalation", r.EscalatedScale)
			}
			if len(run.Escalations) > MaxEscalations {
				t.Errorf("%d escalations", len(run.Escalations))
			}
			for _, s := range played {
				if s > opts.Scale*MaxEscalationFactor {
					t.Errorf("a run at scale %v, beyond %d × %v", s, MaxEscalationFactor, opts.Scale)
				}
			}
		})
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEscalationPlayed plays real scenarios (the in-process mockagent on virtual
// time) with a fake slip of 1150 ms at --timeout-scale 1: an agent that hangs
// fails the heartbeat limit at the slower scale too (FAIL); one that stops its
// heartbeats for 2.2 s, beyond the limit at scale 1, passes at scale 5
// (HARNESS-ERROR, no pass). The escalation's transcript is written like a
// confirmation's, at its scale.
func TestEscalationPlayed(t *testing.T) {
	t.Parallel()
	var sc *conform.Scenario
	for _, s := range builtin(t) {
		if s.ID == "aop2-heartbeat" {
			sc = s
		}
	}
	if sc == nil {
		t.Fatal("no aop2-heartbeat scenario")
	}
	ag, err := mockagent.Lookup("aop2")
	if err != nil {
		t.Fatal(err)
	}
	slow := func(ctx context.Context, opts Options, sc *conform.Scenario, k int) (conform.ScenarioRun, []conform.Result) {
		run, rs := runScenario(ctx, opts, sc, k)
		if opts.Scale == 1 {
			run.SlipMS = 1150
		}
		return run, rs
	}
	for _, tt := range []struct {
		fault, check string
		want         conform.Verdict
	}{
		{"hang", "aop2/6.1/heartbeat-liveness", conform.Fail},
		{"stop-heartbeats", "aop2/6.1/heartbeat-liveness", conform.HarnessError},
	} {
		t.Run(tt.fault, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			var rep *conform.Report
			var err error
			synctest.Test(t, func(t *testing.T) {
				rep, err = Run(context.Background(), Options{
					Protocol: "aop2", Command: []string{"mockagent", "--protocol", "aop2", "--fault", tt.fault},
					Scenarios: []*conform.Scenario{sc}, OutDir: out, Parallel: 1, Run: tt.check, play: slow,
					Launcher: agentio.InProcess{Agent: ag, Fault: tt.fault, Settle: synctest.Wait},
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			var r *conform.Result
			for i := range rep.Results {
				if rep.Results[i].Check == tt.check {
					r = &rep.Results[i]
				}
			}
			if r == nil || r.Verdict != tt.want || r.EscalatedScale != 5 {
				t.Fatalf("%s: %+v; want %s escalated to scale 5", tt.check, r, tt.want)
			}
			esc := rep.Scenarios[0].Escalations
			if len(esc) != 1 || esc[0].Run != 3 || esc[0].TimeoutScale != 5 || esc[0].Transcript != filepath.Join(out, "aop2-heartbeat.run3.jsonl") {
				t.Fatalf("escalations %+v", esc)
			}
			b, err := os.ReadFile(esc[0].Transcript)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"timeout_scale":5`) {
				t.Errorf("the escalation's transcript does not run at scale 5:\n%s", clip(string(b)))
			}
			if wantExit := rep.HarnessErrors > 0; wantExit != (tt.want == conform.HarnessError) {
				t.Errorf("harness errors %d with %s", rep.HarnessErrors, tt.want)
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000]
	}
	return s
}

// TestEscalationCheckJudgedTwice: a check judged twice in a run (two
// occurrences) is escalated occurrence by occurrence, as mergeRuns merges it:
// the second occurrence, which failed under slip and fails again within the
// tolerance at the slower scale, is a FAIL, whatever the first one did there.
func TestEscalationCheckJudgedTwice(t *testing.T) {
	t.Parallel()
	const id = "aop2/6.1/heartbeat-interval"
	var played []float64
	play := func(_ context.Context, opts Options, sc *conform.Scenario, k int) (conform.ScenarioRun, []conform.Result) {
		played = append(played, opts.Scale)
		slip := int64(1150)
		if opts.Scale > 1 {
			slip = 900
		}
		run := conform.ScenarioRun{ID: sc.ID, Spoke: true, SlipMS: slip, Transcript: transcriptPath(opts.OutDir, sc.ID, k)}
		return run, []conform.Result{
			{Check: id, Scenario: sc.ID, Verdict: conform.Pass, Message: "first interval ok"},
			{Check: id, Scenario: sc.ID, Verdict: conform.Fail, Message: "second gap of 1.4s"},
		}
	}
	opts := Options{Protocol: "aop2", Command: []string{"agent"}, OutDir: t.TempDir(), Scale: 1, play: play}
	_, rs := runRepeated(context.Background(), opts, &conform.Scenario{ID: "s", Protocol: "aop2"})
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2: %+v", len(rs), rs)
	}
	if rs[0].Verdict != conform.Pass {
		t.Errorf("first occurrence: %s, want PASS", rs[0].Verdict)
	}
	if rs[1].Verdict != conform.Fail || !strings.Contains(rs[1].Message, "second gap of 1.4s — confirmed at --timeout-scale") {
		t.Errorf("second occurrence: %s %q, want a FAIL confirmed at the slower scale", rs[1].Verdict, rs[1].Message)
	}
	if fmt.Sprint(played) != "[1 1 5]" {
		t.Errorf("scales played %v, want [1 1 5]", played)
	}
}
