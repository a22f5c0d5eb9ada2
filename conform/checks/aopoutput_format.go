package checks

import (
	"fmt"
	"strings"
	"unicode/utf8"

	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"

	"github.com/aopkit/aopkit/conform"
)

var aopOutFormatMarkers = &conform.Check{
	ID:          "aop-output/format/markers",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop-output-1.0.0 §AOP Format Specification",
	Requirement: "Every agent response MUST include these markers: [AOP:START], [AOP:TASK], [AOP:SUMMARY], [AOP:DETAILS_FILE], [AOP:STATUS], [AOP:END], in this order.",
	Lint:        []string{"AOPOUT-MARKER-001", "AOPOUT-MARKER-002", "AOPOUT-MARKER-003"},
	Bad:         `[AOP:STATUS] before [AOP:SUMMARY], or no [AOP:START]`,
	Good:        `START, TASK, SUMMARY, DETAILS_FILE, (METRICS), STATUS, END`,
	Run: func(s *conform.Session) conform.Outcome {
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
	},
}

var aopOutFormatSingleReport = &conform.Check{
	ID:          "aop-output/format/single-report",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop-output-1.0.0 §Purpose; bindings §aop-output",
	Requirement: "The agent returns ONLY an AOP-formatted summary: one [AOP:START]..[AOP:END] block and no other output on stdout.",
	Lint:        []string{"AOPOUT-MARKER-005"},
	Bad:         `"Loading workspace index..." printed before [AOP:START]`,
	Good:        `only the report on stdout; logs on stderr`,
	Run: func(s *conform.Session) conform.Outcome {
		rep := parseAOPReport(s)
		if rep.blocks == 0 && len(rep.values) > 0 {
			// Markers without [AOP:START] or [AOP:END]: format/markers' failure.
			return conform.NotJudgedf("aop-output/format/markers", "the agent printed markers but no [AOP:START]..[AOP:END] block")
		}
		if rep.blocks != 1 {
			return conform.Mismatch("the agent printed a wrong number of reports", "1 [AOP:START]..[AOP:END] block", fmt.Sprintf("%d blocks", rep.blocks))
		}
		if len(rep.outside) > 0 {
			return conform.Mismatch(fmt.Sprintf("%d stdout lines outside the report", len(rep.outside)), "only the report on stdout", conform.Clip(recordText(rep.outside[0]), 200)).At(seqs(rep.outside)...)
		}
		return conform.Passf("one report, nothing else on stdout")
	},
}

var aopOutFormatTaskLength = &conform.Check{
	ID:          "aop-output/format/task-length",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop-output-1.0.0 §Validation Checklist",
	Requirement: "[AOP:TASK] is present and under 50 chars.",
	Lint:        []string{"AOPOUT-TASK-001"},
	Bad:         `[AOP:TASK] Search the whole repository for every authentication and session handling implementation`,
	Good:        `[AOP:TASK] Search the repository for auth implementat...`,
	Run: func(s *conform.Session) conform.Outcome {
		rep := parseAOPReport(s)
		if o := rep.missing("TASK"); o != nil {
			return *o
		}
		t := rep.values["TASK"]
		if t == "" {
			return conform.Failf("[AOP:TASK] is empty")
		}
		if n := utf8.RuneCountInString(t); n > spec.MaxTask {
			return conform.Mismatch("the task description is too long", fmt.Sprintf("at most %d characters", spec.MaxTask), fmt.Sprintf("%d characters: %s", n, t)).At(rep.seqs["TASK"])
		}
		return conform.Passf("task description of %d characters", utf8.RuneCountInString(t))
	},
}

var aopOutFormatSummaryLimit = &conform.Check{
	ID:          "aop-output/format/summary-limit",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop-output-1.0.0 §Summary Length Limits by Task Type",
	Requirement: "[AOP:SUMMARY]: 1-5 bullet points of key findings, within the limit of the task type (search 500, analysis 600, code 300, test 400, build 200, documentation 500 chars).",
	Lint:        []string{"AOPOUT-SUMMARY-001", "AOPOUT-SUMMARY-002", "AOPOUT-SEQ-001"},
	Bad:         `a build summary of 800 characters, or 7 bullets`,
	Good:        `3 bullets within 200 characters for a build`,
	Run: func(s *conform.Session) conform.Outcome {
		rep := parseAOPReport(s)
		if o := rep.missing("SUMMARY"); o != nil {
			return *o
		}
		if rep.text == "" && rep.cutShort() {
			return conform.NotJudgedf("aop-output/format/markers", "the report stops after an empty [AOP:SUMMARY], before [AOP:END]")
		}
		if rep.blocks == 0 {
			o := conform.NotJudgedf("aop-output/format/markers", "without an [AOP:START]..[AOP:END] block the summary's bullets are not read as the report's")
			o.Explains = []string{"AOPOUT-SUMMARY-001"} // the linter's "[AOP:SUMMARY] is empty", for the same reason
			return o
		}
		limit, _ := spec.SummaryLimit(aopTaskType(s))
		n := utf8.RuneCountInString(rep.text)
		bullets := spec.Bullets(rep.summary)
		if rep.text == "" || n > limit || bullets > spec.MaxBullets {
			o := conform.Mismatch("the summary breaks its limits", fmt.Sprintf("1-%d bullets, at most %d characters (%s)", spec.MaxBullets, limit, orDash(aopTaskType(s))), fmt.Sprintf("%d bullets, %d characters", bullets, n)).At(rep.seqs["SUMMARY"])
			if rep.text != "" {
				// Too long or too many bullets: what the agent sent (a run cut
				// short only shortens a summary).
				o = o.OnSent()
			}
			return o
		}
		return conform.Passf("%d characters, %d bullets", n, bullets)
	},
}

var aopOutFormatStatus = &conform.Check{
	ID:          "aop-output/format/status",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop-output-1.0.0 §Validation Checklist",
	Requirement: "[AOP:STATUS] is success, failure, or partial.",
	Lint:        []string{"AOPOUT-STATUS-001"},
	Bad:         `[AOP:STATUS] done`,
	Good:        `[AOP:STATUS] success`,
	Run: func(s *conform.Session) conform.Outcome {
		rep := parseAOPReport(s)
		if o := rep.missing("STATUS"); o != nil {
			return *o
		}
		st := rep.values["STATUS"]
		if !spec.ValidStatus(st) {
			return conform.Mismatch("the status is not one of success, failure, partial", "success | failure | partial", st).At(rep.seqs["STATUS"])
		}
		return conform.Passf("status %s", st)
	},
}

var aopOutFormatTimestamps = &conform.Check{
	ID:          "aop-output/format/timestamps",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop-output-1.0.0 §AOP Format Specification",
	Requirement: "[AOP:START] {ISO timestamp} … [AOP:END] {ISO timestamp}, the end not before the start.",
	Lint:        []string{"AOPOUT-TIME-"},
	Bad:         `[AOP:START] yesterday`,
	Good:        `[AOP:START] 2026-11-22T10:00:00Z … [AOP:END] 2026-11-22T10:00:02Z`,
	Run: func(s *conform.Session) conform.Outcome {
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
	},
}
