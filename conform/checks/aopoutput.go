package checks

import (
	"sort"

	"fmt"
	"strings"
	"unicode/utf8"

	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"

	"github.com/aopkit/aopkit/conform"
)

var aopOutC = common{protocol: "aop-output", bindings: "bindings §aop-output"}

func aopOutCheck(id, family string, tier conform.Tier, level conform.Level, spec, req string, lint []string, run func(*conform.Session) conform.Outcome) *conform.Check {
	return &conform.Check{ID: "aop-output/" + id, Protocol: "aop-output", Family: family, Tier: tier, Level: level, Spec: spec, Requirement: req, Lint: lint, Run: run}
}

// aopReport is the report parsed from the agent's stdout (lint/spec/aopoutput).
type aopReport struct {
	markers []string          // in order
	values  map[string]string // first value of each marker
	seqs    map[string]int
	summary []spec.SummaryLine // the summary's non-empty lines
	text    string             // the summary's text, trimmed
	body    []string           // other non-empty lines inside the report (the "agent work")
	outside []*conform.Record
	blocks  int
}

func parseAOPReport(s *conform.Session) aopReport {
	rep := aopReport{values: map[string]string{}, seqs: map[string]int{}}
	var text strings.Builder
	var starts []int // offset of each record's text in the joined stdout
	recs := s.AgentLines(0, "stdout")
	for i, r := range recs {
		if i > 0 {
			text.WriteByte('\n')
		}
		starts = append(starts, text.Len())
		text.WriteString(recordText(r))
	}
	recAt := func(off int) *conform.Record {
		return recs[sort.Search(len(starts), func(i int) bool { return starts[i] > off })-1]
	}
	if len(recs) == 0 {
		return rep
	}
	p := spec.Parse([]byte(text.String()))
	in, inSummary := false, false
	for _, l := range p.Lines {
		name, value, isMarker := spec.ParseMarker(l.Text)
		if !isMarker {
			switch {
			case inSummary || strings.TrimSpace(l.Text) == "":
			case in:
				rep.body = append(rep.body, l.Text)
			default:
				rep.outside = append(rep.outside, recAt(l.Off))
			}
			continue
		}
		rep.markers = append(rep.markers, name)
		if _, seen := rep.values[name]; !seen {
			rep.values[name] = value
			rep.seqs[name] = recAt(l.Off).Seq
		}
		inSummary = name == "SUMMARY"
		switch name {
		case "START":
			in = true
			rep.blocks++
		case "END":
			in, inSummary = false, false
		}
	}
	rep.summary, rep.text = p.Summary()
	return rep
}

// missing is the outcome of a check that reads the value of marker name when the
// report has no such marker, or was cut short before its end: the missing marker is
// the root cause, reported by aop-output/format/markers (nil when it is there).
func (rep aopReport) missing(name string) *conform.Outcome {
	if _, ok := rep.values[name]; ok {
		return nil
	}
	why := "the report has no [AOP:" + name + "] marker"
	if rep.blocks == 0 {
		why = "the agent printed no [AOP:START]..[AOP:END] report"
	}
	o := conform.NotJudgedf("aop-output/format/markers", "%s", why)
	return &o
}

// cutShort reports whether the report stops before its [AOP:END] marker (the
// agent crashed or was stopped while writing it).
func (rep aopReport) cutShort() bool {
	_, end := rep.values["END"]
	return rep.blocks > 0 && !end
}

func aopTaskType(s *conform.Session) string {
	if a := s.Attempt(1); a != nil {
		return strings.ToLower(str(decode(a.Input), "task_type"))
	}
	return ""
}

var aopOutputChecks = []*conform.Check{
	aopOutC.lintClean("aop-output-1.0.0 §AOP Format Specification"),
	aopOutC.exitZero("The agent prints its report on stdout, writes its details file and exits 0."),
	aopOutC.stopOnTerm("timeouts"),

	aopOutCheck("format/markers", "happy-path", conform.Core, conform.MUST, "aop-output-1.0.0 §AOP Format Specification",
		"Every agent response MUST include these markers: [AOP:START], [AOP:TASK], [AOP:SUMMARY], [AOP:DETAILS_FILE], [AOP:STATUS], [AOP:END], in this order.",
		[]string{"AOPOUT-MARKER-001", "AOPOUT-MARKER-002", "AOPOUT-MARKER-003"},
		func(s *conform.Session) conform.Outcome {
			rep := parseAOPReport(s)
			var want []string
			for _, m := range spec.Markers {
				if spec.Required(m) {
					want = append(want, m)
				}
			}
			var got []string
			for _, m := range rep.markers {
				if m != "METRICS" {
					got = append(got, m)
				}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				return conform.Mismatch("the report's markers are missing or out of order", strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
			return conform.Passf("all markers, in order")
		}),

	aopOutCheck("format/single-report", "happy-path", conform.Core, conform.MUST, "aop-output-1.0.0 §Purpose; bindings §aop-output",
		"The agent returns ONLY an AOP-formatted summary: one [AOP:START]..[AOP:END] block and no other output on stdout.",
		[]string{"AOPOUT-MARKER-005"},
		func(s *conform.Session) conform.Outcome {
			rep := parseAOPReport(s)
			if rep.blocks != 1 {
				return conform.Mismatch("the agent printed a wrong number of reports", "1 [AOP:START]..[AOP:END] block", fmt.Sprintf("%d blocks", rep.blocks))
			}
			if len(rep.outside) > 0 {
				o := conform.Mismatch(fmt.Sprintf("%d stdout lines outside the report", len(rep.outside)), "only the report on stdout", conform.Clip(recordText(rep.outside[0]), 200))
				o.Seq = seqs(rep.outside)
				return o
			}
			return conform.Passf("one report, nothing else on stdout")
		}),

	aopOutCheck("format/task-length", "happy-path", conform.Core, conform.MUST, "aop-output-1.0.0 §Validation Checklist",
		"[AOP:TASK] is present and under 50 chars.",
		[]string{"AOPOUT-TASK-001"},
		func(s *conform.Session) conform.Outcome {
			rep := parseAOPReport(s)
			if o := rep.missing("TASK"); o != nil {
				return *o
			}
			t := rep.values["TASK"]
			if t == "" {
				return conform.Failf("[AOP:TASK] is empty")
			}
			if n := utf8.RuneCountInString(t); n > spec.MaxTask {
				o := conform.Mismatch("the task description is too long", fmt.Sprintf("at most %d characters", spec.MaxTask), fmt.Sprintf("%d characters: %s", n, t))
				o.Seq = []int{rep.seqs["TASK"]}
				return o
			}
			return conform.Passf("task description of %d characters", utf8.RuneCountInString(t))
		}),

	aopOutCheck("format/summary-limit", "happy-path", conform.Core, conform.MUST, "aop-output-1.0.0 §Summary Length Limits by Task Type",
		"[AOP:SUMMARY]: 1-5 bullet points of key findings, within the limit of the task type (search 500, analysis 600, code 300, test 400, build 200, documentation 500 chars).",
		[]string{"AOPOUT-SUMMARY-001", "AOPOUT-SUMMARY-002", "AOPOUT-SEQ-001"},
		func(s *conform.Session) conform.Outcome {
			rep := parseAOPReport(s)
			if o := rep.missing("SUMMARY"); o != nil {
				return *o
			}
			if rep.text == "" && rep.cutShort() {
				return conform.NotJudgedf("aop-output/format/markers", "the report stops after an empty [AOP:SUMMARY], before [AOP:END]")
			}
			limit, _ := spec.SummaryLimit(aopTaskType(s))
			n := utf8.RuneCountInString(rep.text)
			bullets := spec.Bullets(rep.summary)
			if rep.text == "" || n > limit || bullets > spec.MaxBullets {
				o := conform.Mismatch("the summary breaks its limits", fmt.Sprintf("1-%d bullets, at most %d characters (%s)", spec.MaxBullets, limit, orDash(aopTaskType(s))), fmt.Sprintf("%d bullets, %d characters", bullets, n))
				if rep.text != "" {
					// Too long or too many bullets: what the agent sent (a run cut
					// short only shortens a summary).
					o = o.OnSent()
				}
				o.Seq = []int{rep.seqs["SUMMARY"]}
				return o
			}
			return conform.Passf("%d characters, %d bullets", n, bullets)
		}),

	aopOutCheck("format/status", "happy-path", conform.Core, conform.MUST, "aop-output-1.0.0 §Validation Checklist",
		"[AOP:STATUS] is success, failure, or partial.",
		[]string{"AOPOUT-STATUS-001"},
		func(s *conform.Session) conform.Outcome {
			rep := parseAOPReport(s)
			if o := rep.missing("STATUS"); o != nil {
				return *o
			}
			st := rep.values["STATUS"]
			if !spec.ValidStatus(st) {
				o := conform.Mismatch("the status is not one of success, failure, partial", "success | failure | partial", st)
				o.Seq = []int{rep.seqs["STATUS"]}
				return o
			}
			return conform.Passf("status %s", st)
		}),

	aopOutCheck("format/timestamps", "happy-path", conform.Core, conform.MUST, "aop-output-1.0.0 §AOP Format Specification",
		"[AOP:START] {ISO timestamp} … [AOP:END] {ISO timestamp}, the end not before the start.",
		[]string{"AOPOUT-TIME-"},
		func(s *conform.Session) conform.Outcome {
			rep := parseAOPReport(s)
			if o := rep.missing("START"); o != nil {
				return *o
			}
			if _, _, ok := spec.ParseTime(rep.values["START"]); !ok {
				return conform.Mismatch("the report's [AOP:START] timestamp is not ISO 8601", "ISO 8601", rep.values["START"])
			}
			if o := rep.missing("END"); o != nil {
				return *o
			}
			st, _, ok1 := spec.ParseTime(rep.values["START"])
			en, _, ok2 := spec.ParseTime(rep.values["END"])
			if !ok1 || !ok2 || en.Before(st) {
				return conform.Mismatch("the report's timestamps are not ISO 8601 or end before they start", "ISO 8601 START ≤ END", map[string]string{"START": rep.values["START"], "END": rep.values["END"]})
			}
			return conform.Passf("START %s, END %s", rep.values["START"], rep.values["END"])
		}),

	aopOutCheck("details/file", "happy-path", conform.Core, conform.MUST, "aop-output-1.0.0 §Validation Checklist; bindings §aop-output",
		"[AOP:DETAILS_FILE] points to valid path or \"none\": a file the agent wrote inside its scratch directory; a .json details file is valid JSON.",
		[]string{"AOPOUT-DETAILS-"},
		func(s *conform.Session) conform.Outcome {
			rep := parseAOPReport(s)
			if o := rep.missing("DETAILS_FILE"); o != nil {
				return *o
			}
			named := rep.values["DETAILS_FILE"]
			if named == "none" {
				return conform.Passf("no details file (\"none\")")
			}
			df := conform.FactAOPOutputDetails.Get(s)
			if df.Exists && strings.HasSuffix(strings.ToLower(named), ".json") && !df.JSON {
				return conform.Mismatch("the details file is not valid JSON", "a JSON details file", "invalid JSON in "+named)
			}
			if !df.Inside {
				return conform.Mismatch("the details file is outside the scratch directory", "a path inside the scratch directory", named)
			}
			if !df.Exists {
				return conform.Mismatch("the details file does not exist", named+" written before exit", "missing")
			}
			return conform.Passf("details file %s", df.Path)
		}),

	aopOutCheck("details/fields", "happy-path", conform.Full, conform.SHOULD, "aop-output-1.0.0 §Details File Format",
		"The details file (JSON) should include aop_version, agent_id, task, timestamp and results; a details file that is not .json (Markdown, a diff, a log) is not judged.",
		[]string{"AOPOUT-FILE-"},
		func(s *conform.Session) conform.Outcome {
			df := conform.FactAOPOutputDetails.Get(s)
			if !df.Exists {
				return conform.NotTestedf("no details file")
			}
			if !strings.HasSuffix(strings.ToLower(df.Path), ".json") {
				// Only a .json details file is JSON (the spec's table of task
				// types puts details in Markdown, diffs and logs too).
				return conform.Outcome{Verdict: conform.NotApplicable, Message: fmt.Sprintf("not applicable: the details file %s is not a .json file", df.Path)}
			}
			if !df.JSON || df.Seq == 0 {
				return conform.Mismatch("the details file is not JSON", "a JSON object", "not JSON")
			}
			m := decode(s.Records[df.Seq-1].Msg)
			var missing []string
			for _, k := range []string{"aop_version", "agent_id", "task", "timestamp", "results"} {
				if field(m, k) == nil {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				o := conform.Mismatch("the details file lacks fields", "aop_version, agent_id, task, timestamp, results", "missing: "+strings.Join(missing, ", "))
				o.Seq = []int{df.Seq}
				return o
			}
			return conform.Passf("details file complete")
		}),

	aopOutCheck("context/no-dumps", "output-hygiene", conform.Full, conform.MUST, "aop-output-1.0.0 §Purpose, §Implementation in Agent Prompts",
		"DO NOT include full file contents, complete search results, verbose logs or stack traces: besides the markers and the summary, the report holds at most 5 short lines.",
		[]string{"AOPOUT-CONTENT-001", "AOPOUT-SUMMARY-003", "AOPOUT-SUMMARY-004"},
		func(s *conform.Session) conform.Outcome {
			rep := parseAOPReport(s)
			if o := rep.missing("START"); o != nil {
				return *o
			}
			n := 0
			for _, l := range rep.body {
				n += utf8.RuneCountInString(l)
			}
			if len(rep.body) > 5 || n > 500 {
				return conform.Mismatch("the report carries bulk content", "at most 5 lines / 500 characters besides markers and summary", fmt.Sprintf("%d lines, %d characters: %s", len(rep.body), n, conform.Clip(strings.Join(rep.body, " / "), 200)))
			}
			return conform.Passf("%d extra lines in the report", len(rep.body))
		}),
}
