package checks

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aopkit/aopkit/conform"
)

var aopOutContextNoDumps = &conform.Check{
	ID:          "aop-output/context/no-dumps",
	Family:      "output-hygiene",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "aop-output-1.0.0 §Purpose, §Implementation in Agent Prompts",
	Requirement: "DO NOT include full file contents, complete search results, verbose logs or stack traces: besides the markers and the summary, the report holds at most 5 short lines.",
	Lint:        []string{"AOPOUT-CONTENT-001", "AOPOUT-SUMMARY-003", "AOPOUT-SUMMARY-004"},
	Bad:         `200 lines of file content between [AOP:TASK] and [AOP:SUMMARY]`,
	Good:        `the full content goes to the details file; the report keeps the summary`,
	Run: func(s *conform.Session) conform.Outcome {
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
	},
}
