package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/internal/stdschemas"
)

func sample() *conform.Report {
	text := "log line"
	results := []conform.Result{
		{Check: "aop2/5/final-response", Scenario: "s1", Protocol: "aop2", Tier: conform.Core, Level: conform.MUST, Spec: "aop2 §5", Requirement: "one RESPONSE", Verdict: conform.Pass, Message: "ok"},
		{Check: "aop2/5/final-signal", Scenario: "s1", Protocol: "aop2", Tier: conform.Core, Level: conform.MUST, Spec: "aop2 §5", Requirement: "final signal", Verdict: conform.Fail,
			Message: "missing", Expected: "state COMPLETED\nsignal SUCCESS", Actual: "state COMPLETED\nsignal <none>", Evidence: []int{2}, Rerun: "aopconform run --protocol aop2 --run aop2/5/final-signal -- ./agent",
			Lint: []conform.LintFinding{{Seq: 2, Rule: "AOP2-X", Severity: "error", Message: "bad <tag>"}}},
		{Check: "aop2/6.1/heartbeat-interval", Scenario: "s2", Protocol: "aop2", Tier: conform.Resilient, Level: conform.MUST, Verdict: conform.NotTested, Message: "never arose"},
		{Check: "aop2/bind/stop-on-eof", Scenario: "s2", Protocol: "aop2", Tier: conform.Resilient, Level: conform.SHOULD, Verdict: conform.Skip},
	}
	return &conform.Report{
		Schema: conform.ReportSchema, Protocol: "aop2", Command: []string{"./agent", "--x"}, Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		Scenarios: []conform.ScenarioRun{
			{ID: "s1", Title: "one", Protocol: "aop2", Transcript: "out/s1.jsonl", Attempts: []conform.AttemptInfo{{N: 1}},
				Records: []conform.Record{{Seq: 1, From: "orchestrator", Msg: json.RawMessage(`{"a":1}`)}, {Seq: 2, From: "agent", Text: &text}, {Seq: 3, From: "harness", Event: "agent-exit", Detail: conform.Details(conform.KeyExitCode.Is(0))}}},
			{ID: "s2", Title: "two", Protocol: "aop2", HarnessError: "launch failed"},
		},
		Results: results, Score: conform.ScoreResults("aop2", results), HarnessErrors: 1,
	}
}

func TestFormats(t *testing.T) {
	t.Parallel()
	r := sample()
	for _, name := range []string{"r.json", "r.xml", "r.md", "r.html", "r.txt"} {
		w, err := ByExtension(name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := w(&b, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := b.String()
		switch {
		case strings.HasSuffix(name, ".json"):
			var back conform.Report
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Schema != conform.ReportSchema || len(back.Results) != 4 {
				t.Errorf("json round trip: %v", err)
			}
		case strings.HasSuffix(name, ".xml"):
			var doc junitSuites
			if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("junit: %v", err)
			}
			// FAIL is a failure; every case of the scenario the harness could not run is an error.
			if doc.Tests != 4 || doc.Failures+doc.Errors != 3 {
				t.Errorf("junit counts: tests %d failures %d errors %d", doc.Tests, doc.Failures, doc.Errors)
			}
			junitFile := filepath.Join(t.TempDir(), "junit.xml")
			if err := os.WriteFile(junitFile, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			stdschemas.ValidateXML(t, junitFile) // the common Jenkins JUnit XSD
			if strings.Contains(out, "<testsuites") && strings.Contains(strings.SplitN(out, "\n", 3)[1], "skipped=") {
				t.Errorf("<testsuites> carries skipped, which the JUnit XSD does not allow: %s", strings.SplitN(out, "\n", 3)[1])
			}
		case strings.HasSuffix(name, ".html"):
			for _, want := range []string{"<!DOCTYPE html>", `<del class="line">signal SUCCESS`, `<ins class="line">signal &lt;none&gt;`, "bad &lt;tag&gt;", "agent-exit", "launch failed", "aopconform run --protocol aop2 --run aop2/5/final-signal"} {
				if !strings.Contains(out, want) {
					t.Errorf("html lacks %q", want)
				}
			}
		case strings.HasSuffix(name, ".md"):
			for _, want := range []string{"# aopconform: aop2", "```diff", "- signal SUCCESS", "+ signal <none>", "Harness error"} {
				if !strings.Contains(out, want) {
					t.Errorf("markdown lacks %q", want)
				}
			}
		default:
			for _, want := range []string{"FAIL aop2/5/final-signal [MUST Core] in s1", "rerun: aopconform run", "HARNESS ERROR in s2", "aop2: MUST 1/3"} {
				if !strings.Contains(out, want) {
					t.Errorf("text lacks %q:\n%s", want, out)
				}
			}
		}
	}
	if _, err := ByExtension("r.pdf"); err == nil {
		t.Error("want an error for .pdf")
	}
}

// TestNoMessageLeads: a run in which the implementation never spoke opens every
// human report with how it ended, before the sandbox's refusals (issue 29).
func TestNoMessageLeads(t *testing.T) {
	t.Parallel()
	r := sample()
	r.Containment = &conform.Containment{Mode: "landlock-abi-7", Exits: "exit 1 in 2 of 2 scenarios",
		Refusals: []string{"mkdir: cannot create directory '/tmp/forge-workspaces': Permission denied <x>"}}
	for _, name := range []string{"r.md", "r.html", "r.txt"} {
		w, _ := ByExtension(name)
		var b bytes.Buffer
		if err := w(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		i := strings.Index(out, "NO PROTOCOL MESSAGE: the implementation never spoke; it ended with exit 1 in 2 of 2 scenarios")
		j := strings.Index(out, "SANDBOX:")
		if i < 0 || j < 0 || i > j {
			t.Errorf("%s: the no-message line (at %d) does not lead the refusals (at %d)\n%s", name, i, j, out)
		}
	}
	r.Containment.Exits = ""
	var b bytes.Buffer
	Text(&b, r)
	if strings.Contains(b.String(), "NO PROTOCOL MESSAGE") {
		t.Error("a run that spoke has a no-message line")
	}
}

// TestOneBlockPerCheck: a check that fails in three scenarios, two of them the
// same way, is one FAILURES block naming the three scenarios, and every report
// keeps what each variant says with its scenarios.
func TestOneBlockPerCheck(t *testing.T) {
	t.Parallel()
	r := sample()
	fail := func(scenario, msg string) conform.Result {
		return conform.Result{Check: "aop2/5/final-response", Scenario: scenario, Protocol: "aop2", Tier: conform.Core, Level: conform.MUST, Verdict: conform.Fail, Message: msg}
	}
	r.Results = []conform.Result{fail("s1", "sent 0 RESPONSE for task-123"), fail("s2", "sent 0 RESPONSE for task-456"), fail("s3", "sent 0 RESPONSE for task-123")}
	bs := Blocks(Failures(r))
	if len(bs) != 1 || len(bs[0].Members) != 3 || len(bs[0].Variants) != 2 || len(bs[0].Variants[0].Members) != 2 {
		t.Fatalf("blocks %+v; want one block of 3 results in 2 variants", bs)
	}
	for _, f := range []struct {
		name string
		w    Writer
		want []string
	}{
		{"text", Text, []string{"FAIL aop2/5/final-response [MUST Core] in s1, s2, s3", "in s1, s3:\n    sent 0 RESPONSE for task-123", "in s2:\n    sent 0 RESPONSE for task-456"}},
		{"md", Markdown, []string{"In `s1`, `s3`:\n\nsent 0 RESPONSE for task-123", "In `s2`:\n\nsent 0 RESPONSE for task-456"}},
		{"html", HTML, []string{"sent 0 RESPONSE for task-123", "sent 0 RESPONSE for task-456", `<h4>In <a href="#s-s2">s2</a>:</h4>`}},
	} {
		out := render(t, f.w, r)
		if n := strings.Count(out, "aop2/5/final-response"); f.name == "text" && n != 1 {
			t.Errorf("text: the check is named %d times, want once", n)
		}
		for _, w := range f.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: missing %q in\n%s", f.name, w, out)
			}
		}
	}
}

// TestLintFindingOnce: a result that lint findings failed says its first finding
// in its message; the problem block prints each finding once, not the message too.
func TestLintFindingOnce(t *testing.T) {
	t.Parallel()
	r := sample()
	lint := []conform.LintFinding{{Seq: 6, Rule: "AOF-COMP-002", Severity: "error", Message: "tests.failed exceeds tests.total"}}
	r.Results = []conform.Result{{Check: "aof/lint/messages-valid", Scenario: "s1", Protocol: "aof", Tier: conform.Core, Level: conform.MUST, Verdict: conform.Fail, Message: conform.LintMessage(lint), Lint: lint}}
	for _, f := range []struct {
		name string
		w    Writer
	}{{"text", Text}, {"md", Markdown}, {"html", HTML}} {
		out := render(t, f.w, r)
		if n := strings.Count(out, "tests.failed exceeds tests.total"); n != 1 {
			t.Errorf("%s: the finding is printed %d times, want once\n%s", f.name, n, out)
		}
	}
}
