package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// TestScoreLineHonest: "MUSTs exercised N of M" counts the MUSTs the run
// judged the agent on, not one that was NOT-TESTED in every scenario; an empty
// SHOULD set says there is none instead of "SHOULD 0/0 (0.0%)", in every format.
func TestScoreLineHonest(t *testing.T) {
	must := func(check, sc string, v conform.Verdict) conform.Result {
		return conform.Result{Check: check, Scenario: sc, Protocol: "aop2", Tier: conform.Core, Level: conform.MUST, Verdict: v, Message: "m"}
	}
	results := []conform.Result{
		must("aop2/5/final-response", "s1", conform.Pass),
		must("aop2/5/final-response", "s2", conform.Pass),
		must("aop2/6.1/heartbeat-interval", "s1", conform.NotTested),
		must("aop2/6.1/heartbeat-interval", "s2", conform.NotTested),
		must("aop2/11/finish-within-timeout", "s2", conform.NotApplicable),
	}
	r := &conform.Report{Schema: conform.ReportSchema, Protocol: "aop2", Command: []string{"./agent"}, Results: results, Score: conform.ScoreResults("aop2", results)}
	if ex, sel := Exercised(r); ex != 2 || sel != 5 {
		t.Errorf("Exercised %d of %d, want 2 of 5", ex, sel)
	}
	if r.Score.MustExercised != 2 || r.Score.MustSelected != 5 {
		t.Errorf("score: exercised %d of %d, want 2 of 5", r.Score.MustExercised, r.Score.MustSelected)
	}
	for name, f := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return Text(b, r) },
		"markdown": func(b *bytes.Buffer) error { return Markdown(b, r) },
		"html":     func(b *bytes.Buffer) error { return HTML(b, r) },
	} {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "0/0") || !strings.Contains(out, "no SHOULD checks") {
			t.Errorf("%s: want \"no SHOULD checks\", never 0/0:\n%s", name, out)
		}
		if !strings.Contains(out, "exercised 2 of 5") && !strings.Contains(out, "exercised <b>2 of 5</b>") {
			t.Errorf("%s: want MUSTs exercised 2 of 5:\n%s", name, out)
		}
	}
	na := append(results, conform.Result{Check: "aop2/5/artifacts-honest", Scenario: "s1", Level: conform.SHOULD, Tier: conform.Full, Verdict: conform.NotApplicable})
	r2 := &conform.Report{Protocol: "aop2", Results: na, Score: conform.ScoreResults("aop2", na)}
	if got := VerdictLine(r2); !strings.Contains(got, "no SHOULD check applicable") {
		t.Errorf("every SHOULD NOT-APPLICABLE: %s", got)
	}
}

// TestTextUncut: written to a file or a pipe, the text report keeps each row
// whole; on a terminal it cuts them at Width columns.
func TestTextUncut(t *testing.T) {
	long := "the agent wrote " + strings.Repeat("a long explanation ", 12) + "END-OF-MESSAGE"
	results := []conform.Result{{Check: "aop2/5/final-response", Scenario: "s1", Protocol: "aop2", Family: "happy-path", Tier: conform.Core, Level: conform.MUST, Verdict: conform.Pass, Message: long}}
	r := &conform.Report{Protocol: "aop2", Results: results, Score: conform.ScoreResults("aop2", results)}
	var cut, whole bytes.Buffer
	if err := Text(&cut, r); err != nil {
		t.Fatal(err)
	}
	if err := TextUncut(&whole, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cut.String(), "END-OF-MESSAGE") {
		t.Errorf("terminal text: the row is not cut at %d columns:\n%s", Width, cut.String())
	}
	if !strings.Contains(whole.String(), "END-OF-MESSAGE") {
		t.Errorf("uncut text: the row lost its end:\n%s", whole.String())
	}
}
