package aopoutput_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/aopoutput"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
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
	taken   *aopoutput.Taken   // nil: no report-taken (no report)
	details *aopoutput.Details // nil: the report named no details file
	exit    int
	stopped bool // the engine stopped the agent (SIGTERM at the deadline or a step)
	cutOff  bool // the report record is marked cut_off
}

func decisions(t *testing.T, p enginetest.Played) outcome {
	t.Helper()
	if p.Err != nil {
		t.Fatalf("Drive: %v", p.Err)
	}
	s := p.Session
	var o outcome
	if v, ok := s.Facts["aopoutput.taken"].(aopoutput.Taken); ok {
		o.taken = &v
	}
	if v, ok := s.Facts["aopoutput.details"].(aopoutput.Details); ok {
		o.details = &v
	}
	if a := s.Last(); a != nil {
		o.exit = a.Exit.Code
		o.stopped = !a.Terminated.IsZero()
	}
	for _, r := range s.Records {
		if r.Key == "AOP:REPORT" && r.Detail["cut_off"] == true {
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
				if o.taken == nil || o.taken.Status != "success" || o.taken.Cut || o.exit != 0 || o.stopped {
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
			if o.taken != nil || o.details != nil {
				t.Errorf("taken %+v, details %+v: want nothing taken", o.taken, o.details)
			}
		},
		"oversize-payload": takenWhole,
		"bad-timestamps":   takenWhole,
		"stdout-garbage":   takenWhole,
		"missing-marker":   takenWhole,
		"summary-too-long": func(t *testing.T, o outcome) {
			if o.taken == nil || !o.taken.Cut || o.taken.Chars <= o.taken.Limit || len([]rune(o.taken.Summary)) != o.taken.Limit || o.taken.Limit != 600 {
				t.Errorf("taken %+v: want the summary cut at the analysis limit 600", o.taken)
			}
		},
		"bad-status": func(t *testing.T, o outcome) {
			if o.taken == nil || o.taken.Status != "" {
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
	}
	for _, f := range mockout.Faults {
		check, ok := want[f.Name]
		if !ok {
			t.Errorf("fault %s: no expectation", f.Name)
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			p := enginetest.PlayVirtual(t, sc, f.Name, "", aopoutput.Drive)
			check(t, decisions(t, p))
			golden(t, f.Name+".jsonl", p.Transcript)
		})
	}
}

func stoppedWithoutReport(t *testing.T, o outcome) {
	if !o.stopped || !o.cutOff || o.taken != nil && o.taken.Status != "" {
		t.Errorf("stopped %v, cut off %v, taken %+v: want the agent stopped, its report cut off, no status taken", o.stopped, o.cutOff, o.taken)
	}
}

func crashed(t *testing.T, o outcome) {
	if o.exit != 2 || o.stopped {
		t.Errorf("exit %d, stopped %v: want the crash's exit 2", o.exit, o.stopped)
	}
}

func takenWhole(t *testing.T, o outcome) {
	if o.taken == nil || o.taken.Cut || o.exit != 0 {
		t.Errorf("taken %+v, exit %d: want the report taken whole", o.taken, o.exit)
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
