package orchside

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// aoLaunch is an aop-output launch: the task line at 10ms, the agent's stdout
// lines (merged as the driver merges them), then the given events.
func aoLaunch(input string, out []string, evs ...Event) Launch {
	l := Launch{Start: t0, Events: []Event{{At: at("10ms"), Kind: "stdin", Line: input, Key: aopOutTaskKey, Seq: 1}, {At: at("10ms"), Kind: "stdin-eof"}}}
	for _, o := range out {
		l.Events = append(l.Events, Event{At: at("2s"), Kind: "stdout", Line: o})
	}
	l.Events = append(l.Events, evs...)
	aopOutMerge(&l)
	return l
}

// aoSession is a session of the parent: its stdout lines (the report lines it
// printed) and its launches.
func aoSession(task string, orch *conform.Attempt, lines []string, ls ...Launch) *conform.Session {
	s := session(task, orch, ls...)
	for i, l := range lines {
		t := l
		r := conform.Record{Seq: 100 + i, From: Judged, Stream: "control", Text: &t}
		s.Records = append(s.Records, r)
	}
	return s
}

func report(status, summary string, end bool) []string {
	out := []string{"[AOP:START] 2000-01-01T00:00:00Z", "[AOP:TASK] Run the build", "", "[AOP:SUMMARY]"}
	out = append(out, strings.Split(summary, "\n")...)
	out = append(out, "", "[AOP:DETAILS_FILE] outputs/build-details.json", "[AOP:STATUS] "+status)
	if end {
		out = append(out, "[AOP:END] 2000-01-01T00:00:02Z")
	}
	return out
}

func TestAopOutputChecks(t *testing.T) {
	task := `{"input":{"task":"Run the build","task_type":"build"},"workspace":"/ws"}`
	input := `{"task":"Run the build","task_type":"build"}`
	sum := "- a\n- b"
	long := "- " + strings.Repeat("x", 300)
	good := report("success", sum, true)
	line := func(report, status string, summary *string, details string) string {
		q := func(p *string) string {
			if p == nil {
				return "null"
			}
			return `"` + strings.ReplaceAll(*p, "\n", `\n`) + `"`
		}
		return `{"report":"` + report + `","status":"` + status + `","summary":` + q(summary) + `,"details_file":"outputs/build-details.json","details":` + details + `}`
	}
	s := func(v string) *string { return &v }
	det := `{"aop_version":"1.0.0","task":"Run the build"}`
	cut200 := long[:200]
	done := &conform.Attempt{N: 1, Start: t0, End: at("3s"), Gone: at("3s")}
	deadline := &conform.Attempt{N: 1, Start: t0, End: at("12s"), Timeout: true, Terminated: at("12s")}
	cases := []checkCase{
		{"aop-output/orch/parse/report-taken", "ok", aoSession(task, nil, []string{line("complete", "success", s(sum), det)}, aoLaunch(input, good, exit("2s", 0))), conform.Pass},
		{"aop-output/orch/parse/report-taken", "details not read", aoSession(task, nil, []string{line("complete", "success", s(sum), "null")}, aoLaunch(input, good, exit("2s", 0))), conform.Pass},
		{"aop-output/orch/parse/report-taken", "first line only", aoSession(task, nil, []string{line("complete", "success", s("- a"), det)}, aoLaunch(input, good, exit("2s", 0))), conform.Fail},
		{"aop-output/orch/parse/report-taken", "other details", aoSession(task, nil, []string{line("complete", "success", s(sum), `{"task":"other"}`)}, aoLaunch(input, good, exit("2s", 0))), conform.Fail},
		{"aop-output/orch/parse/report-taken", "no line", aoSession(task, nil, nil, aoLaunch(input, good, exit("2s", 0))), conform.Fail},
		{"aop-output/orch/parse/report-taken", "not a line", aoSession(task, nil, []string{"took it"}, aoLaunch(input, good, exit("2s", 0))), conform.Fail},
		{"aop-output/orch/parse/report-taken", "other task line", aoSession(task, nil, []string{line("complete", "success", s(sum), det)}, aoLaunch(`{"task":"Run the build"}`, good, exit("2s", 0))), conform.Fail},
		{"aop-output/orch/parse/report-taken", "two launches", aoSession(task, nil, []string{line("complete", "success", s(sum), det)}, aoLaunch(input, good, exit("2s", 0)), aoLaunch(input, good, exit("2s", 0))), conform.Fail},
		{"aop-output/orch/parse/report-taken", "no launch", aoSession(task, nil, nil), conform.Fail},

		{"aop-output/orch/limits/summary-within-task-type", "cut at 200", aoSession(task, nil, []string{line("complete", "success", s(cut200), det)}, aoLaunch(input, report("success", long, true), exit("2s", 0))), conform.Pass},
		{"aop-output/orch/limits/summary-within-task-type", "cut shorter", aoSession(task, nil, []string{line("complete", "success", s(long[:50]), det)}, aoLaunch(input, report("success", long, true), exit("2s", 0))), conform.Pass},
		{"aop-output/orch/limits/summary-within-task-type", "whole", aoSession(task, nil, []string{line("complete", "success", s(long), det)}, aoLaunch(input, report("success", long, true), exit("2s", 0))), conform.Fail},
		{"aop-output/orch/limits/summary-within-task-type", "not its beginning", aoSession(task, nil, []string{line("complete", "success", s("xx"), det)}, aoLaunch(input, report("success", long, true), exit("2s", 0))), conform.Fail},
		{"aop-output/orch/limits/summary-within-task-type", "short summary", aoSession(task, nil, []string{line("complete", "success", s(sum), det)}, aoLaunch(input, good, exit("2s", 0))), conform.NotTested},

		{"aop-output/orch/parse/unusable-not-success", "missing", aoSession(task, nil, []string{`{"report":"missing","status":"unknown","summary":null,"details_file":null,"details":null}`}, aoLaunch(input, nil, exit("2s", 0))), conform.Pass},
		{"aop-output/orch/parse/unusable-not-success", "missing taken as success", aoSession(task, nil, []string{`{"report":"missing","status":"success","summary":null,"details_file":null,"details":null}`}, aoLaunch(input, nil, exit("2s", 0))), conform.Fail},
		{"aop-output/orch/parse/unusable-not-success", "cut short", aoSession(task, nil, []string{line("incomplete", "unknown", s(sum), det)}, aoLaunch(input, report("partial", sum, false), exit("2s", 2))), conform.Pass},
		{"aop-output/orch/parse/unusable-not-success", "cut short, partial taken", aoSession(task, nil, []string{line("incomplete", "partial", s(sum), det)}, aoLaunch(input, report("partial", sum, false), exit("2s", 2))), conform.Fail},
		{"aop-output/orch/parse/unusable-not-success", "done", aoSession(task, nil, []string{line("complete", "unknown", s(sum), det)}, aoLaunch(input, report("done", sum, true), exit("2s", 0))), conform.Pass},
		{"aop-output/orch/parse/unusable-not-success", "done taken", aoSession(task, nil, []string{line("complete", "done", s(sum), det)}, aoLaunch(input, report("done", sum, true), exit("2s", 0))), conform.Fail},
		{"aop-output/orch/parse/unusable-not-success", "a good report", aoSession(task, nil, []string{line("complete", "success", s(sum), det)}, aoLaunch(input, good, exit("2s", 0))), conform.NotTested},

		{"aop-output/orch/bind/agent-stopped-after-report", "stopped", aoSession(task, done, []string{line("complete", "success", s(sum), det)}, aoLaunch(input, good, sig("2.5s"), exit("2.5s", 0))), conform.Pass},
		{"aop-output/orch/bind/agent-stopped-after-report", "waited to the deadline", aoSession(task, deadline, nil, aoLaunch(input, good, alive("11.9s"))), conform.Fail},
		{"aop-output/orch/bind/agent-stopped-after-report", "left running", aoSession(task, done, []string{line("complete", "success", s(sum), det)}, aoLaunch(input, good, alive("2.9s"))), conform.Fail},
		{"aop-output/orch/bind/agent-stopped-after-report", "report not taken", aoSession(task, done, []string{line("complete", "unknown", s(sum), det)}, aoLaunch(input, good, sig("2.5s"), exit("2.5s", 0))), conform.Fail},
		{"aop-output/orch/bind/agent-stopped-after-report", "agent exited", aoSession(task, done, []string{line("complete", "success", s(sum), det)}, aoLaunch(input, good, exit("2s", 0))), conform.NotTested},
	}
	runCheckCases(t, cases)
}

func TestAopOutputDetailsEscape(t *testing.T) {
	task := `{"input":{"task":"Search","task_type":"search"},"workspace":"/nonexistent/ws"}`
	input := `{"task":"Search","task_type":"search"}`
	esc := []string{"[AOP:START] 2000-01-01T00:00:00Z", "[AOP:TASK] Search", "[AOP:SUMMARY]", "- a", "[AOP:DETAILS_FILE] ../outside.json", "[AOP:STATUS] success", "[AOP:END] 2000-01-01T00:00:02Z"}
	in := []string{"[AOP:START] 2000-01-01T00:00:00Z", "[AOP:DETAILS_FILE] outputs/d.json", "[AOP:END] 2000-01-01T00:00:02Z"}
	for _, c := range []struct {
		name, line string
		out        []string
		want       conform.Verdict
	}{
		{"not read", `{"report":"complete","status":"success","summary":"- a","details_file":"../outside.json","details":null}`, esc, conform.Pass},
		{"read", `{"report":"complete","status":"success","summary":"- a","details_file":"../outside.json","details":{"secret":1}}`, esc, conform.Fail},
		{"inside", `{"report":"incomplete","status":"unknown","summary":null,"details_file":"outputs/d.json","details":null}`, in, conform.NotTested},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := conform.LookupCheck("aop-output/orch/details/stays-in-workspace").Run(aoSession(task, nil, []string{c.line}, aoLaunch(input, c.out, exit("2s", 0))))
			if o.Verdict != c.want {
				t.Errorf("%s, want %s: %s", o.Verdict, c.want, o.Message)
			}
		})
	}
}

// TestAopOutputMerge: the report lines from START to END are one event; lines
// around it stay apart; a block cut short is merged to its last line.
func TestAopOutputMerge(t *testing.T) {
	l := aoLaunch(`{}`, []string{"log", "[AOP:START] x", "[AOP:TASK] t", "[AOP:END] y", "after", "[AOP:START] z", "[AOP:STATUS] partial"}, exit("3s", 2))
	var got []string
	for _, e := range l.Events {
		if e.Kind == "stdout" {
			got = append(got, e.Line)
		}
	}
	want := []string{"log", "[AOP:START] x\n[AOP:TASK] t\n[AOP:END] y", "after", "[AOP:START] z\n[AOP:STATUS] partial"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("merged %q, want %q", got, want)
	}
}

// checkCase is one check judged on a synthetic session.
type checkCase struct {
	check, name string
	s           *conform.Session
	want        conform.Verdict
}

func runCheckCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.check+"/"+c.name, func(t *testing.T) {
			o := conform.LookupCheck(c.check).Run(c.s)
			if o.Verdict != c.want {
				t.Errorf("%s, want %s: %s (expected %q, actual %q)", o.Verdict, c.want, o.Message, o.Expected, o.Actual)
			}
		})
	}
}
