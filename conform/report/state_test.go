package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// TestStateHarnessError (issue 33 item 8): a run whose only trouble is the
// harness's (exit 2) is reported HARNESS ERROR in every format, never FAILED; a
// MUST the agent failed besides still makes it FAILED.
func TestStateHarnessError(t *testing.T) {
	must := func(v conform.Verdict) conform.Result {
		return conform.Result{Check: "aop2/5/final-response", Scenario: "s", Protocol: "aop2", Level: conform.MUST, Tier: conform.Core, Verdict: v}
	}
	for _, tt := range []struct {
		results []conform.Result
		want    string
	}{
		{[]conform.Result{must(conform.Pass), must(conform.HarnessError)}, "HARNESS ERROR"},
		{[]conform.Result{must(conform.Fail), must(conform.HarnessError)}, "FAILED"},
	} {
		rep := &conform.Report{Schema: conform.ReportSchema, Protocol: "aop2", Results: tt.results, HarnessErrors: 1,
			Scenarios: []conform.ScenarioRun{{ID: "s", Protocol: "aop2", HarnessError: "writing the transcript: no space left on device"}}}
		rep.Score = conform.ScoreResults("aop2", rep.Results)
		if got := State(rep); got != tt.want {
			t.Errorf("State = %q, want %q", got, tt.want)
		}
		for _, f := range []struct {
			name string
			w    func(*bytes.Buffer, *conform.Report) error
		}{
			{"text", func(b *bytes.Buffer, r *conform.Report) error { return Text(b, r) }},
			{"md", func(b *bytes.Buffer, r *conform.Report) error { return Markdown(b, r) }},
			{"html", func(b *bytes.Buffer, r *conform.Report) error { return HTML(b, r) }},
		} {
			var b bytes.Buffer
			if err := f.w(&b, rep); err != nil {
				t.Fatal(err)
			}
			other := map[string]string{"FAILED": "HARNESS ERROR", "HARNESS ERROR": "FAILED"}[tt.want]
			if !strings.Contains(b.String(), tt.want) || (tt.want == "HARNESS ERROR" && strings.Contains(b.String(), other)) {
				t.Errorf("%s report of a %s run:\n%s", f.name, tt.want, b.String())
			}
		}
	}
}
