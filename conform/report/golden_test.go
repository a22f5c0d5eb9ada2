package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/internal/stdschemas"
)

var update = flag.Bool("u", false, "rewrite the report goldens in testdata/")

// repeated is a report of a run with --repeat 2: pass rates, a FLAKY timing check
// with its margin, a HARNESS-ERROR with the harness's lateness, a root cause with a
// NOT-JUDGED dependent, and one failure met the same way in two scenarios.
func repeated() *conform.Report {
	r := everyVerdict()
	margin, within := int64(320), int64(-80)
	r.Results = append(r.Results,
		conform.Result{Check: "aop2/6.1/heartbeat-interval", Scenario: "s1", Protocol: "aop2", Family: "heartbeats", Tier: conform.Resilient, Level: conform.MUST,
			Spec: "aop2 §6.1", Requirement: "HEARTBEAT at the interval", Verdict: conform.Flaky, Message: "FLAKY: failed in 1 of 2 runs, passed in 1; the failing run: attempt 1: 1.62s between heartbeats",
			Runs: 2, Passed: 1, SlipMS: 40, MeasuredMS: 1620, LimitMS: 1300, MarginMS: &margin, Rerun: "aopconform run --protocol aop2 --repeat 2 --run aop2/6.1/heartbeat-interval -- ./agent"},
		conform.Result{Check: "aop2/6.1/heartbeat-liveness", Scenario: "s1", Protocol: "aop2", Family: "heartbeats", Tier: conform.Resilient, Level: conform.MUST,
			Spec: "aop2 §6.1", Requirement: "no missed beats", Verdict: conform.HarnessError, Message: "the harness's own timers were late by up to 900 ms in every run",
			Runs: 2, Passed: 0, SlipMS: 900},
		conform.Result{Check: "aop2/bind/stop-on-eof", Scenario: "s1", Protocol: "aop2", Family: "cancellation", Tier: conform.Resilient, Level: conform.SHOULD,
			Spec: "bindings §aop2", Requirement: "stop on EOF", Verdict: conform.Pass, Message: "the agent stopped after EOF on stdin", Runs: 2, Passed: 2, MeasuredMS: 1920, LimitMS: 2000, MarginMS: &within},
		conform.Result{Check: "aop2/1.2/response-ids", Scenario: "s1", Protocol: "aop2", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
			Spec: "aop2 §1.2", Requirement: "ids", Verdict: conform.NotJudged, DependsOn: "aop2/5/final-signal", Message: "not judged: depends on aop2/5/final-signal (attempt 1 sent no RESPONSE)", Runs: 2},
		conform.Result{Check: "aop2/bind/exit-zero", Scenario: "s1", Protocol: "aop2", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
			Spec: "bindings §aop2", Requirement: "exit 0", Verdict: conform.Fail, Message: "the agent exited with a non-zero code", Expected: "exit 0", Actual: "exit 1", Evidence: []int{3}, Runs: 2, Rerun: "aopconform run --protocol aop2 --repeat 2 --run aop2/bind/exit-zero -- ./agent"},
		conform.Result{Check: "aop2/bind/exit-zero", Scenario: "s2", Protocol: "aop2", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
			Spec: "bindings §aop2", Requirement: "exit 0", Verdict: conform.Fail, Message: "the agent exited with a non-zero code", Expected: "exit 0", Actual: "exit 1", Evidence: []int{7}, Runs: 2, Rerun: "aopconform run --protocol aop2 --repeat 2 --run aop2/bind/exit-zero -- ./agent"},
	)
	r.Score = conform.ScoreResults("aop2", r.Results)
	return r
}

// TestGoldens keeps every format's output byte for byte (-u rewrites testdata/);
// the output is deterministic: the same report always renders the same bytes.
func TestGoldens(t *testing.T) {
	t.Parallel()
	r := repeated()
	for _, name := range []string{"report.txt", "report.md", "report.html", "report.xml", "report.json"} {
		w, err := ByExtension(name)
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if err := w(&a, r); err != nil {
			t.Fatal(err)
		}
		if err := w(&b, repeated()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two renderings of the same report differ", name)
		}
		path := filepath.Join("testdata", name+".golden")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./conform/report -run TestGoldens -u writes it)", err)
		}
		if !bytes.Equal(a.Bytes(), want) {
			t.Errorf("%s differs from %s (review, then go test ./conform/report -run TestGoldens -u):\n%s", name, path, firstDiff(string(want), a.String()))
		}
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, w, g)
		}
	}
	return ""
}

// TestEveryFormatShowsRepeats: every format shows the pass rates, the FLAKY margin,
// the harness's lateness of a HARNESS-ERROR and "MUSTs exercised N of M"; the text
// and Markdown reports print a failure met the same way in two scenarios once.
func TestEveryFormatShowsRepeats(t *testing.T) {
	t.Parallel()
	r := repeated()
	judged, total := Exercised(r)
	exercised := "MUSTs exercised " + fmt.Sprint(judged) + " of " + fmt.Sprint(total)
	for _, name := range []string{"r.txt", "r.md", "r.html", "r.xml", "r.json"} {
		w, _ := ByExtension(name)
		out := render(t, w, r)
		wants := []string{"passed 1 of 2 runs", "measured 1.62s against a limit of 1.3s: 320ms over it", "harness timers late by up to 900ms", exercised}
		if name == "r.json" {
			wants = []string{`"runs": 2`, `"passed_runs": 1`, `"margin_ms": 320`, `"harness_slip_ms": 900`, `"must_exercised": ` + fmt.Sprint(judged), `"must_selected": ` + fmt.Sprint(total), `"depends_on": "aop2/5/final-signal"`}
		}
		if name == "r.html" {
			wants[3] = "MUSTs exercised <b>" + fmt.Sprint(judged) + " of " + fmt.Sprint(total) + "</b>"
		}
		if name == "r.xml" {
			junitFile := filepath.Join(t.TempDir(), "junit.xml")
			if err := os.WriteFile(junitFile, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			stdschemas.ValidateXML(t, junitFile) // the common Jenkins JUnit XSD
			wants[3] = `name="aopconform.musts_exercised" value="` + fmt.Sprint(judged) + ` of ` + fmt.Sprint(total) + `"`
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	text := render(t, Text, r)
	if n := strings.Count(text, "FAIL aop2/bind/exit-zero"); n != 1 || !strings.Contains(text, "FAIL aop2/bind/exit-zero [MUST Core] in s1, s2") {
		t.Errorf("the same failure in s1 and s2 is printed %d times, want once naming both:\n%s", n, text)
	}
	md := render(t, Markdown, r)
	if n := strings.Count(md, "### FAIL `aop2/bind/exit-zero`"); n != 1 {
		t.Errorf("markdown prints the same failure %d times, want once", n)
	}
}

// TestEachResultOnce: every result is printed in exactly one place of the text
// report: a failure block, a block worth reading, or a row of its family (a
// NOT-TESTED was once printed twice).
func TestEachResultOnce(t *testing.T) {
	t.Parallel()
	r := repeated()
	for _, v := range []conform.Verdict{conform.NotTested, conform.Warn} {
		for _, lv := range []conform.Level{conform.MUST, conform.SHOULD} {
			r.Results = append(r.Results, conform.Result{Check: "aop2/x/" + strings.ToLower(string(v)+"-"+string(lv)), Scenario: "s3", Protocol: "aop2", Family: "f", Tier: conform.Core, Level: lv, Verdict: v, Message: "unique-" + string(v) + "-" + string(lv)})
		}
	}
	text := render(t, Text, r)
	for _, res := range r.Results {
		if res.Verdict == conform.Skip {
			continue
		}
		in := 0
		for _, bl := range append(Blocks(Failures(r)), Blocks(Attention(r))...) {
			for _, m := range bl.Members {
				if m.Check == res.Check && m.Scenario == res.Scenario {
					in++
				}
			}
		}
		for _, f := range Rest(r) {
			for _, m := range f.Results {
				if m.Check == res.Check && m.Scenario == res.Scenario {
					in++
				}
			}
		}
		if in != 1 {
			t.Errorf("%s %s in %s is in %d places of the report, want 1", res.Verdict, res.Check, res.Scenario, in)
		}
		if strings.HasPrefix(res.Message, "unique-") {
			if n := strings.Count(text, res.Message); n != 1 {
				t.Errorf("%q printed %d times", res.Message, n)
			}
		}
	}
}
