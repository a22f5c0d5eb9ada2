package orchside

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aopkit/aopkit/conform"
	engout "github.com/aopkit/aopkit/conform/engine/aopoutput"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

func init() {
	sides["aop-output"] = &side{key: aopOutKey, afterLaunches: aopOutDecisions, mergeLines: aopOutMerge,
		controlLine:     func(r *conform.Record) bool { return aopOutKey(r) == aopOutTakenKey },
		dispatchSummary: aopOutDispatch}
	conform.Register(aopOutChecks...)
	conform.Register(refCheck("aop-output"))
}

// Keys of the aop-output orchestrator side: the task line the parent writes on
// the agent's stdin, and the line it prints on its own stdout for each report it
// took (engout.Line; docs/bindings.md "Orchestrators"). The agent's lines are
// named by their marker (engout.Key).
const (
	aopOutTaskKey  = "task"
	aopOutTakenKey = "taken"
)

func aopOutKey(r *conform.Record) string {
	if r.Msg == nil {
		return engout.Key(r)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(r.Msg, &m) != nil {
		return ""
	}
	if _, ok := m["report"]; ok {
		return aopOutTakenKey
	}
	if _, ok := m["task"]; ok {
		return aopOutTaskKey
	}
	return ""
}

var aopOutChecks = []*conform.Check{
	{
		ID: "aop-output/orch/parse/report-taken", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Spec:        "aop-output §Parsing AOP Output, §Summary Length Limits by Task Type; bindings §orchestrators",
		Requirement: "Add AOP parsing to result handler (Migration Guide). `parseAOPOutput`: `summaryMatch = output.match(/\\[AOP:SUMMARY\\]([\\s\\S]*?)\\[AOP:/)`, `fileMatch = output.match(/\\[AOP:DETAILS_FILE\\]\\s*(\\S+)/)`, `statusMatch = output.match(/\\[AOP:STATUS\\]\\s*(\\w+)/)`. (The parent runs the agent once with the task line it was given, valid under the binding, and takes a good report as it is: status success, the whole summary, the details file it names; it tells so in one line on its stdout.)",
		Lint:        []string{"AOPOUT-INPUT", "GEN-"},
		Bad:         `the agent reports three bullets and [AOP:STATUS] success; the parent prints {"report":"complete","status":"success","summary":"- Examined 3 items ..."} with only the first bullet, or another details file, or no line at all`,
		Good:        `{"report":"complete","status":"success","summary":"- Examined 3 items for: ...\n- 1 finding recorded in the details file\n- No errors during the run","details_file":"outputs/analysis-details.json","details":{"aop_version":"1.0.0",...}}`,
		Run:         aopOutReportTaken,
	},
	{
		ID: "aop-output/orch/limits/summary-within-task-type", Family: "limits", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "aop-output §Summary Length Limits by Task Type, §Parsing AOP Output, §The Problem AOP Solves",
		Requirement: "Summary Length Limits by Task Type: Build Output — Max Summary 200 chars (Search/Explore 500, Analysis 600, Code Changes 300, Test Results 400, Documentation 500); `result.summary = summaryMatch[1].trim().slice(0, 600)`. (The parent never takes more of a summary into its context than its task type's limit: it keeps the summary's beginning, cut at the limit.)",
		Bad:         "a build agent writes an 888-character summary; the parent keeps it whole, or cuts it at 600 characters (the Analysis limit) although the build limit is 200",
		Good:        "the parent keeps the first 200 characters of the build agent's summary and says so in its line",
		Run:         aopOutSummaryLimit,
	},
	{
		ID: "aop-output/orch/details/stays-in-workspace", Family: "details", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "aop-output §Validation Checklist, §Details File Format; bindings §aop-output (files)",
		Requirement: "[AOP:DETAILS_FILE] points to valid path or \"none\" (Validation Checklist); the details file is written inside the agent's scratch directory (bindings). (A parent reads a details file only inside the agent's workspace: a path that leads out of it, by `..`, an absolute path or a link, is never read.)",
		Bad:         "the agent names ../outside.json; the parent opens it and takes the file next to the workspace as the agent's details",
		Good:        `the parent resolves ../outside.json, finds it outside the workspace and prints "details": null`,
		Run:         aopOutDetailsInWorkspace,
	},
	{
		ID: "aop-output/orch/parse/unusable-not-success", Family: "classification", Tier: conform.Core, Level: conform.MUST,
		Spec:        "aop-output §Parsing AOP Output, §Validation Checklist, §AOP Format Specification",
		Requirement: "`status: 'unknown'` (parseAOPOutput's start); [AOP:STATUS] is success, failure, or partial; [AOP:END] marker present (Validation Checklist); Every agent response MUST include these markers. (Output without a report is classified missing, a report without a required marker incomplete, and neither, nor a status outside success|failure|partial, is taken as a status: it stays unknown.)",
		Bad:         "the agent exits 0 without a report, or crashes after [AOP:STATUS] partial before [AOP:END], or reports [AOP:STATUS] done; the parent calls it a success (or takes partial, or done)",
		Good:        `{"report":"missing","status":"unknown","summary":null,"details_file":null,"details":null}`,
		Run:         aopOutUnusable,
	},
	{
		ID: "aop-output/orch/bind/agent-stopped-after-report", Family: "process", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop-output §The Problem AOP Solves (session freezing); bindings §aop-output (exit 0 after [AOP:END]), §common (stopping)",
		Requirement: "This causes context overflow, session freezing, and degraded AI performance. (An agent exits 0 after [AOP:END]; the parent takes a complete report even when the agent lingers, stops the agent — SIGTERM to its group, SIGKILL after a grace period — and ends before the scenario deadline instead of waiting for the exit.)",
		Bad:         "the agent prints a complete report and never exits; the parent waits for its exit until the harness stops it at the scenario deadline, or exits leaving the agent running",
		Good:        "2 s after [AOP:END] the parent sends SIGTERM to the agent, prints its line (status success) and exits 0",
		Run:         aopOutStoppedAfterReport,
	},
	{
		ID: "aop-output/orch/parse/metrics-taken", Family: "metrics", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop-output §AOP Format Specification, §Parsing AOP Output",
		Requirement: "`[AOP:METRICS] {optional: counts, sizes, durations}`; `metricsMatch[1].split(',').forEach(pair => { const [key, value] = pair.split(':').map(s => s.trim()); if (key && value) result.metrics[key] = value; })`. (METRICS is optional and free-form: a report with or without it, or with a part that is no pair, is taken as it is; the metrics a parent keeps are the pairs the spec's parser gives: the value ends at a second colon, a part without one is dropped.)",
		Bad:         "the report has no [AOP:METRICS] and the parent calls it incomplete; or it reads `duration: 1:30` as \"1:30\" where parseAOPOutput keeps \"1\"",
		Good:        `{"report":"complete","status":"success",...,"metrics":{"files_scanned":"234","matches":"8","duration":"1"}}; without METRICS the same line with no "metrics"`,
		Requires:    []string{"aop-output/§aop-format-specification/metrics", "aop-output/§parsing-aop-output/metrics-pairs", "aop-output/§migration-guide/parse-results"},
		Run:         aopOutMetricsTaken,
	},
	{
		ID: "aop-output/orch/details/any-size", Family: "details", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop-output §Details File Format",
		Requirement: "`\"results\": { // Full results here - can be any size`. (The details file's size is the agent's to choose: a parent takes a good report whose details file is large — here about 600 KB — as it takes any other: complete, its status, its whole summary, the details file it names; whether it reads the file is its own affair.)",
		Bad:         "the details file is 600 KB; the parent calls the report incomplete (status unknown) because the file is over its 256 KB limit",
		Good:        `{"report":"complete","status":"success","summary":"- Examined 3 items ...","details_file":"outputs/analysis-details.json","details":null} (or the details as read)`,
		Requires:    []string{"aop-output/§details-file-format/results-any-size"},
		Run:         aopOutDetailsAnySize,
	},
}

// aopOutInput is the binding's task line: {"task", "task_type"}.
type aopOutInput = spec.TaskLine

// aopOutGiven is the task file the parent was given: the task line to send and
// the agent's workspace.
type aopOutGiven struct {
	Input     aopOutInput `json:"input"`
	Workspace string      `json:"workspace"`
}

func aopOutTask(s *conform.Session) (aopOutInput, string, error) {
	var g aopOutGiven
	if err := json.Unmarshal([]byte(FactTask.Get(s)), &g); err != nil || g.Input.Task == "" {
		return g.Input, "", fmt.Errorf("the scenario's task has no input.task")
	}
	return g.Input, g.Workspace, nil
}

// aopOutMerge joins the agent's report lines, from [AOP:START] to [AOP:END], into
// one stdout event, as the reference engine records a report block (aoplint
// reads the block as one report).
func aopOutMerge(l *Launch) {
	var out []Event
	block := -1 // index in out of the open block
	for _, e := range l.Events {
		if e.Kind != "stdout" {
			out = append(out, e)
			continue
		}
		name, _, _ := spec.ParseMarker(e.Line)
		switch {
		case name == "START":
			out = append(out, e)
			block = len(out) - 1
		case block >= 0:
			out[block].Line += "\n" + e.Line
		default:
			out = append(out, e)
		}
		if name == "END" {
			block = -1
		}
	}
	l.Events = out
}

// aopOutLine is one line the parent printed on its stdout.
type aopOutLine struct {
	line engout.Line
	err  error
	seq  int
	text string
}

// aopOutLines are the parent's stdout lines.
func aopOutLines(s *conform.Session) []aopOutLine {
	var out []aopOutLine
	for i := range s.Records {
		r := &s.Records[i]
		if r.From != Judged || (r.Stream != "stdout" && r.Stream != "control") {
			continue
		}
		var b []byte
		if r.Msg != nil {
			b = r.Msg
		} else if r.Text != nil {
			b = []byte(*r.Text)
		}
		l, err := engout.ParseLine(b)
		out = append(out, aopOutLine{line: l, err: err, seq: r.Seq, text: string(b)})
	}
	return out
}

// aopOutExpected is what the reference engine takes of the agent's output in a
// launch (its Take on the lines the agent wrote).
func aopOutExpected(l *Launch, taskType string) (engout.Taken, *spec.Report) {
	var lines []string
	for _, e := range l.Events {
		if e.Kind == "stdout" {
			lines = append(lines, e.Line)
		}
	}
	rep := spec.Parse([]byte(strings.Join(lines, "\n")))
	return engout.Take(rep, taskType, ""), rep
}

// aopOutStart is the common start of the checks: the given task, launch 1 and the
// parent's one line (bad when one is missing).
func aopOutStart(s *conform.Session) (aopOutInput, *Launch, *aopOutLine, *conform.Outcome) {
	g, _, err := aopOutTask(s)
	if err != nil {
		o := conform.NotTestedf("%v", err)
		return g, nil, nil, &o
	}
	ls := launchesOf(s)
	if len(ls) == 0 {
		o := conform.Mismatch("the parent never started the agent ($"+EnvAgent+")", "one launch of $"+EnvAgent, "none")
		return g, nil, nil, &o
	}
	l := &ls[0]
	lines := aopOutLines(s)
	for i := range lines {
		if lines[i].err != nil {
			o := conform.Mismatch("the parent's stdout carries a line that is not its report line: "+lines[i].err.Error(),
				`one JSON object per report: {"report":...,"status":...,"summary":...,"details_file":...,"details":...}`, conform.Clip(lines[i].text, 200))
			o.Seq = []int{lines[i].seq}
			return g, l, nil, &o
		}
	}
	if len(lines) == 0 {
		o := conform.Mismatch("the parent printed no line for the agent's output", "one JSON line on stdout: what it took of the report", "nothing on stdout")
		o.Seq = l.Seqs("stdout", "exit")
		return g, l, nil, &o
	}
	return g, l, &lines[0], nil
}

func strOrNull(p *string) string {
	if p == nil {
		return "null"
	}
	b, _ := json.Marshal(*p)
	return string(b)
}

// aopOutRender shows a line's fields (details as read or not) for a diff.
func aopOutRender(l engout.Line) string {
	det := "not read"
	if l.Details != nil {
		det = "read"
	}
	return fmt.Sprintf("report: %s\nstatus: %s\nsummary: %s\ndetails_file: %s\ndetails: %s", l.Report, l.Status, strOrNull(l.Summary), strOrNull(l.DetailsFile), det)
}

// aopOutAsIs compares the parent's line with the engine's take of a good report:
// the same report, status, summary and details file (as the report writes it);
// the details read or not. It returns the expected line and its rendering.
func aopOutAsIs(gl engout.Line, want engout.Taken, rep *spec.Report) (exp engout.Line, rendered string, same bool) {
	exp = engout.NewLine(want, nil)
	if m := rep.First("DETAILS_FILE"); m != nil {
		exp.DetailsFile = &m.Value
	}
	rendered = strings.Replace(aopOutRender(exp), "details: not read", "details: read (or not)", 1)
	same = gl.Report == exp.Report && gl.Status == exp.Status && strOrNull(gl.Summary) == strOrNull(exp.Summary) && strOrNull(gl.DetailsFile) == strOrNull(exp.DetailsFile)
	return exp, rendered, same
}

func aopOutReportTaken(s *conform.Session) conform.Outcome {
	g, l, got, bad := aopOutStart(s)
	if bad != nil {
		return *bad
	}
	if n := len(launchesOf(s)); n != 1 {
		o := conform.Mismatch("the parent ran the agent more than once for one task", "one launch", fmt.Sprintf("%d launches", n))
		return o
	}
	// The task line: the task file's task and task_type, on the agent's stdin.
	var sent *Event
	for i := range l.Events {
		if l.Events[i].Kind == "stdin" {
			sent = &l.Events[i]
			break
		}
	}
	var in aopOutInput
	var lineErr error
	if sent != nil {
		in, lineErr = spec.DecodeTaskLine([]byte(sent.Line))
	}
	if sent == nil || lineErr != nil || in != g {
		line := "nothing"
		seq := l.Seqs("stdin-eof")
		if sent != nil {
			line, seq = conform.Clip(sent.Line, 200), []int{sent.Seq}
		}
		return conform.Mismatch("the agent did not get its task line", fmt.Sprintf(`{"task":%q,"task_type":%q,...}`, g.Task, g.TaskType), line).At(seq...)
	}
	want, rep := aopOutExpected(l, g.TaskType)
	if want.Report != engout.ReportComplete || want.Status != "success" || want.Cut {
		return conform.NotTestedf("the agent's report is not a good one (the scenario's cue failed): %s, status %s", want.Report, want.Status)
	}
	gl := got.line
	exp, expR, same := aopOutAsIs(gl, want, rep)
	if !same {
		return conform.Mismatch("the parent did not take the good report as it is", expR, aopOutRender(gl)).At(got.seq)
	}
	if gl.Details != nil {
		// What it read must be the agent's details file: the Details File Format's
		// object for this task.
		if d, err := spec.DecodeDetails(gl.Details); err != nil || d.Task != g.Task {
			return conform.Mismatch("the details the parent read are not the agent's details file", fmt.Sprintf(`a JSON object with "task": %q`, g.Task), conform.Clip(string(gl.Details), 200)).At(got.seq)
		}
	}
	return conform.Passf("report complete, status success, the whole summary (%d characters), details file %s", utf8.RuneCountInString(*exp.Summary), strOrNull(exp.DetailsFile)).At(got.seq)
}

func aopOutSummaryLimit(s *conform.Session) conform.Outcome {
	g, l, got, bad := aopOutStart(s)
	if bad != nil {
		return *bad
	}
	want, rep := aopOutExpected(l, g.TaskType)
	_, full := rep.Summary()
	if !want.Cut {
		return conform.NotTestedf("the agent's summary (%d characters) is within the %s limit of %d (the scenario's cue failed)", want.Chars, g.TaskType, want.Limit)
	}
	gl := got.line
	if gl.Summary == nil || *gl.Summary == "" {
		return conform.Mismatch("the parent kept no summary of the report", fmt.Sprintf("the summary's first %d characters at most", want.Limit), strOrNull(gl.Summary)).At(got.seq)
	}
	n := utf8.RuneCountInString(*gl.Summary)
	if n > want.Limit {
		return conform.Mismatch(fmt.Sprintf("the parent kept %d characters of a %s summary: over the task type's limit", n, g.TaskType),
			fmt.Sprintf("at most %d characters (%s)", want.Limit, taskTypeRow(g.TaskType)), fmt.Sprintf("%d characters", n)).At(got.seq)
	}
	if !strings.HasPrefix(full, *gl.Summary) {
		return conform.Mismatch("the summary the parent kept is not the beginning of the agent's summary", conform.Clip(full, want.Limit), conform.Clip(*gl.Summary, want.Limit)).At(got.seq)
	}
	return conform.Passf("kept %d of the summary's %d characters (limit %d, %s)", n, want.Chars, want.Limit, taskTypeRow(g.TaskType)).At(got.seq)
}

func taskTypeRow(name string) string {
	if t, ok := spec.LookupTaskType(name); ok {
		return t.Name
	}
	return "the format's default"
}

func aopOutDetailsInWorkspace(s *conform.Session) conform.Outcome {
	g, l, got, bad := aopOutStart(s)
	if bad != nil {
		return *bad
	}
	_, rep := aopOutExpected(l, g.TaskType)
	m := rep.First("DETAILS_FILE")
	if m == nil || m.Value == "none" {
		return conform.NotTestedf("the agent's report names no details file (the scenario's cue failed)")
	}
	if _, ws, _ := aopOutTask(s); ws != "" {
		if _, _, inside, _ := engout.Resolve(ws, m.Value); inside {
			return conform.NotTestedf("the details file %s is inside the workspace (the scenario's cue failed)", m.Value)
		}
	}
	if got.line.Details != nil {
		return conform.Mismatch(fmt.Sprintf("the parent read %s, outside the agent's workspace", m.Value), "details: null (not read)", "details: "+conform.Clip(string(got.line.Details), 200)).At(got.seq)
	}
	return conform.Passf("%s (outside the workspace) was not read", m.Value).At(got.seq)
}

func aopOutUnusable(s *conform.Session) conform.Outcome {
	g, l, got, bad := aopOutStart(s)
	if bad != nil {
		return *bad
	}
	want, _ := aopOutExpected(l, g.TaskType)
	if want.Report == engout.ReportComplete && want.Status != engout.StatusUnknown {
		return conform.NotTestedf("the agent's report is complete with status %s (the scenario's cue failed)", want.Status)
	}
	gl := got.line
	if gl.Report != want.Report || gl.Status != want.Status {
		msg := "the parent misclassified the agent's output"
		if gl.Status == "success" {
			msg = "the parent took output without a usable report as a success"
		}
		return conform.Mismatch(msg, fmt.Sprintf("report: %s\nstatus: %s", want.Report, want.Status), fmt.Sprintf("report: %s\nstatus: %s", gl.Report, gl.Status)).At(got.seq)
	}
	return conform.Passf("report %s, status %s", gl.Report, gl.Status).At(got.seq)
}

func aopOutStoppedAfterReport(s *conform.Session) conform.Outcome {
	if ls := launchesOf(s); len(ls) > 0 {
		// A parent that waited for the lingering agent's exit has printed nothing
		// yet when the harness stops it: that is the failure to report.
		l := &ls[0]
		_, rep := aopOutExpected(l, "")
		if orch := s.Last(); orch != nil && orch.Timeout && rep.Has("END") {
			return conform.Mismatch("the parent waited for the agent after its [AOP:END] until the harness stopped it at the scenario deadline",
				"the agent stopped, the parent's line and exit", neverStopped(s, l, l.Start)).At(l.Seqs("signal", "exit")...)
		}
	}
	g, l, got, bad := aopOutStart(s)
	if bad != nil {
		return *bad
	}
	want, rep := aopOutExpected(l, g.TaskType)
	if !rep.Has("END") {
		return conform.NotTestedf("the agent never ended its report (the scenario's cue failed)")
	}
	seqs := l.Seqs("signal", "exit")
	_, how, killed := l.Stop(false)
	if how == "" && !killed && l.Exit() != nil {
		if hasSignal(l) {
			how = "signal"
		} else {
			return conform.NotTestedf("the agent exited by itself after its report (the scenario's cue to linger failed)")
		}
	}
	if how == "" && !killed && l.Exit() == nil && l.HarnessKilled != "" {
		return conform.Mismatch("the parent exited leaving the agent running after its report", "the agent stopped (SIGTERM to its group) before the parent exits", "the agent ran until the harness's clean-up").At(seqs...)
	}
	if gl := got.line; gl.Report != want.Report || gl.Status != want.Status {
		return conform.Mismatch("the parent did not take the lingering agent's complete report", fmt.Sprintf("report: %s\nstatus: %s", want.Report, want.Status), fmt.Sprintf("report: %s\nstatus: %s", gl.Report, gl.Status)).At(got.seq)
	}
	if how == "" {
		how = "SIGKILL"
	}
	return conform.Passf("the agent lingering after [AOP:END] was stopped (%s) and its report taken (status %s)", how, want.Status).At(seqs...)
}

// aopOutDispatch is what a launch was dispatched: the task line's task type.
func aopOutDispatch(_ *conform.Session, l *Launch) string {
	e := l.firstTask()
	if e == nil || e.Key != aopOutTaskKey {
		return "no task line"
	}
	in, err := spec.DecodeTaskLine([]byte(e.Line))
	if err != nil {
		return "no task line"
	}
	return "task line, task_type " + in.TaskType
}

// aopOutDecisions are the parent's decisions on the reports, for the comparison
// with the reference engine: what it took of each (no texts, no times).
func aopOutDecisions(s *conform.Session) []string {
	var out []string
	for _, l := range aopOutLines(s) {
		if l.err != nil {
			out = append(out, "prints a line that is not a report line")
			continue
		}
		sum := "no summary"
		if l.line.Summary != nil {
			sum = fmt.Sprintf("summary of %d characters", utf8.RuneCountInString(*l.line.Summary))
		}
		det := "no details file"
		if l.line.DetailsFile != nil {
			det = "details not read"
			if l.line.Details != nil {
				det = "details read"
			}
		}
		out = append(out, fmt.Sprintf("takes report %s, status %s, %s, %s", l.line.Report, l.line.Status, sum, det))
	}
	return out
}

func aopOutMetricsTaken(s *conform.Session) conform.Outcome {
	g, l, got, bad := aopOutStart(s)
	if bad != nil {
		return *bad
	}
	want, rep := aopOutExpected(l, g.TaskType)
	if want.Report != engout.ReportComplete || want.Status != "success" {
		return conform.NotTestedf("the agent's report is not a good one (the scenario's cue failed): %s, status %s", want.Report, want.Status)
	}
	m := rep.First("METRICS")
	what := "a report without [AOP:METRICS]"
	if m != nil {
		what = "a report with [AOP:METRICS] " + m.Value
	}
	gl := got.line
	if gl.Report != want.Report || gl.Status != want.Status {
		return conform.Mismatch("the parent did not take "+what+" as the good report it is (METRICS is optional and free-form)",
			"report complete, status success", fmt.Sprintf("report %s, status %s", gl.Report, gl.Status)).At(got.seq)
	}
	if gl.Summary != nil && strings.Contains(*gl.Summary, "[AOP:METRICS]") {
		return conform.Mismatch("the parent took the METRICS line into the summary", "the summary alone", conform.Clip(*gl.Summary, 200)).At(got.seq)
	}
	if gl.Metrics != nil {
		exp := map[string]string{}
		if m != nil {
			exp = spec.Metrics(m.Value)
		}
		if !maps.Equal(gl.Metrics, exp) {
			return conform.Mismatch("the metrics the parent kept are not the pairs parseAOPOutput gives of "+what, renderMetrics(exp), renderMetrics(gl.Metrics)).At(got.seq)
		}
		return conform.Passf("%s taken as it is; the metrics kept are parseAOPOutput's %s", what, renderMetrics(exp)).At(got.seq)
	}
	return conform.Passf("%s taken as it is (the parent keeps no metrics)", what).At(got.seq)
}

// renderMetrics shows metrics sorted by key.
func renderMetrics(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+": "+m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// largeDetails is the details file size (details_bytes, as the agent's METRICS
// tells it) over which a scenario's details file counts as large.
const largeDetails = 512 << 10

func aopOutDetailsAnySize(s *conform.Session) conform.Outcome {
	g, l, got, bad := aopOutStart(s)
	if bad != nil {
		return *bad
	}
	want, rep := aopOutExpected(l, g.TaskType)
	size, _ := strconv.Atoi(want.Metrics["details_bytes"])
	if want.Report != engout.ReportComplete || want.Status != "success" || size < largeDetails {
		return conform.NotTestedf("the agent's report is no good one with a details file over %d bytes (the scenario's cue failed): %s, status %s, details_bytes %d", largeDetails, want.Report, want.Status, size)
	}
	gl := got.line
	if _, expR, same := aopOutAsIs(gl, want, rep); !same {
		return conform.Mismatch(fmt.Sprintf("the parent did not take the good report as it is: its details file is %d bytes, and the results \"can be any size\"", size), expR, aopOutRender(gl)).At(got.seq)
	}
	return conform.Passf("the report with a %d-byte details file taken as it is", size).At(got.seq)
}
