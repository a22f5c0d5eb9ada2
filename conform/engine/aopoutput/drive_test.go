package aopoutput_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/aopoutput"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/mockagent"
	mockout "github.com/aopkit/aopkit/mockagent/aopoutput"
)

var update = flag.Bool("update", false, "rewrite the reference transcripts in fixtures/reference/aop-output")

const fixtures = "../../../fixtures/reference/aop-output"

func scenario(t *testing.T, id string) *conform.Scenario {
	t.Helper()
	return enginetest.Scenario(t, "aop-output", id)
}

// outcome is what the engine decided in one run.
type outcome struct {
	taken    *aopoutput.Taken   // nil: no report-taken (no report)
	details  *aopoutput.Details // nil: the report named no details file
	exit     int
	stopped  bool // the engine stopped the agent (SIGTERM at the deadline or a step)
	killed   bool // ... with SIGKILL, the grace period over
	timedOut bool // the scenario deadline stopped it
	cutOff   bool // the report record is marked cut_off
}

func decisions(t *testing.T, p enginetest.Played) outcome {
	t.Helper()
	if p.Err != nil {
		t.Fatalf("Drive: %v", p.Err)
	}
	s := p.Session
	var o outcome
	if v, ok := conform.FactAOPOutputTaken.Of(s); ok {
		o.taken = &v
	}
	if v, ok := conform.FactAOPOutputDetails.Of(s); ok {
		o.details = &v
	}
	if a := s.Last(); a != nil {
		o.exit = a.Exit.Code
		o.stopped = !a.Terminated.IsZero()
		o.killed = !a.Killed.IsZero()
		o.timedOut = a.Timeout
	}
	for _, r := range s.Records {
		if r.Key == "AOP:REPORT" && conform.KeyCutOff.Get(r.Detail) {
			o.cutOff = true
		}
	}
	return o
}

// TestScenarios plays every shipped aop-output scenario against the correct
// mockagent: the report is taken whole with its status, the details file is read
// from inside the scratch directory, and the transcript is the reference one.
func TestScenarios(t *testing.T) {
	for _, sc := range enginetest.Builtin(t, "aop-output") {
		t.Run(sc.ID, func(t *testing.T) {
			p := enginetest.PlayVirtual(t, sc, "", "", aopoutput.Drive)
			o := decisions(t, p)
			if sc.ID == "aop-output-sigterm" {
				// The step stops the agent before it reports.
				stoppedWithoutReport(t, o)
			} else {
				if o.taken == nil || o.taken.Status != "success" || o.taken.Report != aopoutput.ReportComplete || o.taken.Cut || o.exit != 0 || o.stopped {
					t.Fatalf("taken %+v, exit %d, stopped %v", o.taken, o.exit, o.stopped)
				}
				if d := o.details; d == nil || !d.Inside || !d.Exists || !d.JSON || d.Seq == 0 {
					t.Errorf("details %+v", o.details)
				}
			}
			golden(t, "correct-"+strings.TrimPrefix(sc.ID, "aop-output-")+".jsonl", p.Transcript)
		})
	}
}

// TestFaults plays the analysis scenario against every mockagent fault and
// checks the engine's decision for it.
func TestFaults(t *testing.T) {
	sc := scenario(t, "aop-output-analysis")
	want := map[string]func(t *testing.T, o outcome){
		"hang":                       stoppedWithoutReport,
		"exceed-timeout":             stoppedWithoutReport,
		"crash-mid-task":             crashed,
		"crash-after-partial-report": crashed,
		"hang-after-report": func(t *testing.T, o outcome) {
			if !o.stopped || o.cutOff || o.taken == nil || o.taken.Report != aopoutput.ReportComplete || o.taken.Status != "success" {
				t.Errorf("stopped %v, cut off %v, taken %+v: want the complete report taken and the lingering agent stopped", o.stopped, o.cutOff, o.taken)
			}
		},
		"malformed-json": func(t *testing.T, o outcome) {
			if d := o.details; d == nil || !d.Exists || d.JSON {
				t.Errorf("details %+v: want a file that is not JSON", o.details)
			}
		},
		"empty-report": func(t *testing.T, o outcome) {
			if o.taken == nil || o.taken.Chars != 0 {
				t.Errorf("taken %+v: want an empty summary", o.taken)
			}
		},
		"no-completion-report": func(t *testing.T, o outcome) {
			if o.taken == nil || o.taken.Report != aopoutput.ReportMissing || o.taken.Status != aopoutput.StatusUnknown || o.details != nil {
				t.Errorf("taken %+v, details %+v: want the report missing, status unknown", o.taken, o.details)
			}
		},
		"oversize-payload": takenWhole,
		"bad-timestamps":   takenWhole,
		"stdout-garbage":   takenWhole,
		"missing-marker": func(t *testing.T, o outcome) {
			if o.taken == nil || o.taken.Report != aopoutput.ReportIncomplete || o.taken.Status != aopoutput.StatusUnknown || o.taken.Cut {
				t.Errorf("taken %+v: want an incomplete report (no [AOP:START]), status unknown", o.taken)
			}
		},
		"summary-too-long": func(t *testing.T, o outcome) {
			if o.taken == nil || !o.taken.Cut || o.taken.Chars <= o.taken.Limit || len([]rune(o.taken.Summary)) != o.taken.Limit || o.taken.Limit != 600 {
				t.Errorf("taken %+v: want the summary cut at the analysis limit 600", o.taken)
			}
		},
		"bad-status": func(t *testing.T, o outcome) {
			if o.taken == nil || o.taken.Status != aopoutput.StatusUnknown {
				t.Errorf("taken %+v: status done is no status of the format", o.taken)
			}
		},
		"details-file-missing": func(t *testing.T, o outcome) {
			if d := o.details; d == nil || !d.Inside || d.Exists || d.Seq != 0 {
				t.Errorf("details %+v: want a missing file inside scratch", o.details)
			}
		},
		"markers-out-of-order": takenWhole,
		"details-path-escape": func(t *testing.T, o outcome) {
			if d := o.details; d == nil || d.Inside || d.Exists || d.Seq != 0 {
				t.Errorf("details %+v: want a path outside scratch, not read", o.details)
			}
		},
		"task-too-long":    takenWhole,
		"too-many-bullets": takenWhole,
		// Played on aop-output-sigterm (ignoresTerm): SIGTERM at 0.7 s, the agent
		// works on, SIGKILL at the end of the grace period, before its report.
		"ignore-shutdown": func(t *testing.T, o outcome) {
			stoppedWithoutReport(t, o)
			if !o.killed || o.exit != -1 {
				t.Errorf("killed %v, exit %d: want the agent that ignores SIGTERM killed after the grace period", o.killed, o.exit)
			}
		},
		"sparse-details":  detailsRead,
		"quoted-duration": detailsRead,
	}
	// ignoresTerm are the faults whose agent traps SIGTERM, played on the
	// scenario that sends it (the analysis one would let it finish its work):
	// agentio.InProcess.IgnoreTerm, as the process ignores the signal.
	ignoresTerm := map[string]bool{"ignore-shutdown": true}
	for _, f := range mockout.Agent.Faults.List() {
		check, ok := want[f.Name]
		if !ok {
			t.Errorf("fault %s: no expectation", f.Name)
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			var p enginetest.Played
			if ignoresTerm[f.Name] {
				p = enginetest.PlayIgnoringTerm(t, scenario(t, "aop-output-sigterm"), f.Name, aopoutput.Drive)
			} else {
				p = enginetest.PlayVirtual(t, sc, f.Name, "", aopoutput.Drive)
			}
			check(t, decisions(t, p))
			golden(t, f.Name+".jsonl", p.Transcript)
		})
	}
}

func stoppedWithoutReport(t *testing.T, o outcome) {
	if !o.stopped || !o.cutOff || o.taken == nil || o.taken.Status != aopoutput.StatusUnknown || o.taken.Report != aopoutput.ReportIncomplete {
		t.Errorf("stopped %v, cut off %v, taken %+v: want the agent stopped, its report cut off, no status taken", o.stopped, o.cutOff, o.taken)
	}
}

func crashed(t *testing.T, o outcome) {
	if o.exit != 2 || o.stopped || o.taken == nil || o.taken.Report != aopoutput.ReportIncomplete || o.taken.Status != aopoutput.StatusUnknown {
		t.Errorf("exit %d, stopped %v, taken %+v: want the crash's exit 2, the report incomplete, status unknown", o.exit, o.stopped, o.taken)
	}
}

// detailsRead: the report taken whole and its details file read as JSON (what
// the file lacks or mistypes is no decision of the parent's).
func detailsRead(t *testing.T, o outcome) {
	takenWhole(t, o)
	if d := o.details; d == nil || !d.Inside || !d.Exists || !d.JSON || d.Seq == 0 {
		t.Errorf("details %+v: want a JSON file inside scratch, read", o.details)
	}
}

func takenWhole(t *testing.T, o outcome) {
	if o.taken == nil || o.taken.Cut || o.exit != 0 || o.stopped {
		t.Errorf("taken %+v, exit %d, stopped %v: want the report taken whole", o.taken, o.exit, o.stopped)
	}
}

// TestEngineFaults: each engine fault changes the engine's decision as named.
func TestEngineFaults(t *testing.T) {
	sc := scenario(t, "aop-output-analysis")
	for _, f := range aopoutput.Faults() {
		t.Run(f.Name, func(t *testing.T) {
			switch f.Name {
			case aopoutput.FaultAcceptOversizedSummary:
				o := decisions(t, enginetest.PlayVirtual(t, sc, "summary-too-long", f.Name, aopoutput.Drive))
				if o.taken == nil || o.taken.Cut || len([]rune(o.taken.Summary)) != o.taken.Chars || o.taken.Chars <= o.taken.Limit {
					t.Errorf("taken %+v: want the oversized summary kept whole", o.taken)
				}
			case aopoutput.FaultSummaryFirstLineOnly:
				o := decisions(t, enginetest.PlayVirtual(t, sc, "", f.Name, aopoutput.Drive))
				if o.taken == nil || strings.Contains(o.taken.Summary, "\n") || o.taken.Summary == "" {
					t.Errorf("taken %+v: want the summary's first line only", o.taken)
				}
			case aopoutput.FaultFollowDetailsPath:
				outside := filepath.Join(t.TempDir(), "outside.json")
				os.WriteFile(outside, []byte(`{"outside":true}`), 0o644)
				ag := &mockagent.Agent{Protocol: "aop-output", Run: func(_ context.Context, env mockagent.Env, _ string) int {
					fmt.Fprintf(env.Stdout, "[AOP:START] 2026-11-22T10:00:00Z\n[AOP:TASK] t\n[AOP:SUMMARY]\n- s\n[AOP:DETAILS_FILE] %s\n[AOP:STATUS] success\n[AOP:END] 2026-11-22T10:00:01Z\n", outside)
					return 0
				}}
				o := decisions(t, enginetest.PlayAgent(t, sc, ag, "", f.Name, aopoutput.Drive))
				if d := o.details; d == nil || d.Inside || !d.Exists || d.Seq == 0 {
					t.Errorf("details %+v: want the file outside read", o.details)
				}
			case aopoutput.FaultRequireMetrics, aopoutput.FaultMetricsWholeValue:
				metrics := map[string]string{aopoutput.FaultRequireMetrics: "", aopoutput.FaultMetricsWholeValue: "[AOP:METRICS] files: 2, duration: 1:30\n"}[f.Name]
				ag := &mockagent.Agent{Protocol: "aop-output", Run: func(_ context.Context, env mockagent.Env, _ string) int {
					fmt.Fprintf(env.Stdout, "[AOP:START] 2026-11-22T10:00:00Z\n[AOP:TASK] t\n[AOP:SUMMARY]\n- s\n[AOP:DETAILS_FILE] none\n%s[AOP:STATUS] success\n[AOP:END] 2026-11-22T10:00:01Z\n", metrics)
					return 0
				}}
				right := decisions(t, enginetest.PlayAgent(t, sc, ag, "", "", aopoutput.Drive))
				o := decisions(t, enginetest.PlayAgent(t, sc, ag, "", f.Name, aopoutput.Drive))
				switch {
				case right.taken == nil || right.taken.Report != aopoutput.ReportComplete || (metrics != "" && right.taken.Metrics["duration"] != "1"):
					t.Errorf("without the fault: taken %+v, want the report complete and duration 1 (parseAOPOutput)", right.taken)
				case f.Name == aopoutput.FaultRequireMetrics && (o.taken == nil || o.taken.Report != aopoutput.ReportIncomplete):
					t.Errorf("taken %+v: want a report without METRICS incomplete", o.taken)
				case f.Name == aopoutput.FaultMetricsWholeValue && (o.taken == nil || o.taken.Metrics["duration"] != "1:30"):
					t.Errorf("taken %+v: want duration 1:30", o.taken)
				}
			case aopoutput.FaultRejectLargeDetails:
				ag := &mockagent.Agent{Protocol: "aop-output", Run: func(_ context.Context, env mockagent.Env, _ string) int {
					os.MkdirAll(filepath.Join(env.Dir, "outputs"), 0o755)
					os.WriteFile(filepath.Join(env.Dir, "outputs", "d.json"), []byte(`{"results":"`+strings.Repeat("x", aopoutput.LargeDetails)+`"}`), 0o644)
					fmt.Fprintf(env.Stdout, "[AOP:START] 2026-11-22T10:00:00Z\n[AOP:TASK] t\n[AOP:SUMMARY]\n- s\n[AOP:DETAILS_FILE] outputs/d.json\n[AOP:STATUS] success\n[AOP:END] 2026-11-22T10:00:01Z\n")
					return 0
				}}
				right := decisions(t, enginetest.PlayAgent(t, sc, ag, "", "", aopoutput.Drive))
				o := decisions(t, enginetest.PlayAgent(t, sc, ag, "", f.Name, aopoutput.Drive))
				if right.taken == nil || right.taken.Report != aopoutput.ReportComplete || o.taken == nil || o.taken.Report != aopoutput.ReportIncomplete {
					t.Errorf("taken %+v without the fault, %+v with it: want complete, then incomplete", right.taken, o.taken)
				}
			case aopoutput.FaultTrustIncompleteReport:
				o := decisions(t, enginetest.PlayVirtual(t, sc, "crash-after-partial-report", f.Name, aopoutput.Drive))
				if o.taken == nil || o.taken.Report != aopoutput.ReportIncomplete || o.taken.Status != "partial" {
					t.Errorf("taken %+v: want the status of the report cut short taken", o.taken)
				}
			case aopoutput.FaultWaitForAgentExit:
				o := decisions(t, enginetest.PlayVirtual(t, sc, "hang-after-report", f.Name, aopoutput.Drive))
				if o.taken == nil || o.taken.Status != "success" || !o.stopped || !o.timedOut {
					t.Errorf("taken %+v, stopped %v, timed out %v: want the agent left to the scenario deadline", o.taken, o.stopped, o.timedOut)
				}
			default:
				t.Fatalf("engine fault %s has no test", f.Name)
			}
		})
	}
}

func TestResolveStaysInScratch(t *testing.T) {
	root := t.TempDir()
	scratch := filepath.Join(root, "scratch")
	os.MkdirAll(filepath.Join(scratch, "outputs"), 0o755)
	os.WriteFile(filepath.Join(scratch, "outputs", "d.json"), []byte(`{"aop_version":"1.0.0"}`), 0o644)
	os.WriteFile(filepath.Join(root, "secret.json"), []byte(`{"secret":true}`), 0o644)
	os.Symlink(filepath.Join(root, "secret.json"), filepath.Join(scratch, "link.json"))
	for _, c := range []struct {
		path           string
		inside, exists bool
	}{
		{"outputs/d.json", true, true},
		{filepath.Join(scratch, "outputs", "d.json"), true, true},
		{"./outputs/../outputs/d.json", true, true},
		{"../secret.json", false, true},
		{filepath.Join(root, "secret.json"), false, true},
		{"link.json", false, true},
		{"/etc/passwd", false, true},
		{"outputs/none.json", true, false},
		{"outputs", true, false}, // a directory is no details file
	} {
		_, rel, inside, exists := aopoutput.Resolve(scratch, c.path)
		if inside != c.inside || (inside && exists != c.exists) {
			t.Errorf("Resolve(%q) = %q inside %v exists %v; want inside %v exists %v", c.path, rel, inside, exists, c.inside, c.exists)
		}
	}
}

// golden compares got with its reference transcript (go test -update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	enginetest.Golden(t, filepath.Join(fixtures, name), got, *update)
}

// FuzzParseLine: a parent's line never crashes the parse; what parses keeps its
// report and status, and a line the engine writes parses back to itself.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"report":"complete","status":"success","summary":"- a","details_file":"d.json","details":{"a":1}}`))
	f.Add([]byte(`{"report":"missing","status":"unknown","summary":null,"details_file":null,"details":null}`))
	f.Add([]byte(`{"report":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := aopoutput.ParseLine(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(l)
		if err != nil {
			t.Fatalf("marshal %+v: %v", l, err)
		}
		l2, err := aopoutput.ParseLine(again)
		if err != nil || l2.Report != l.Report || l2.Status != l.Status {
			t.Fatalf("%s parsed back as %+v, %v", again, l2, err)
		}
	})
}
