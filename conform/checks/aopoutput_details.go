package checks

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

var aopOutDetailsFile = &conform.Check{
	ID:          "aop-output/details/file",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop-output-1.0.0 §Validation Checklist; bindings §aop-output",
	Requirement: "[AOP:DETAILS_FILE] points to valid path or \"none\": a file the agent wrote inside its scratch directory; a .json details file is valid JSON.",
	Lint:        []string{"AOPOUT-DETAILS-"},
	Bad:         `[AOP:DETAILS_FILE] ../outside.json, or a file never written`,
	Good:        `[AOP:DETAILS_FILE] outputs/analysis-details.json, written before exit`,
	Run: func(s *conform.Session) conform.Outcome {
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
			o := conform.Mismatch("the details file is not valid JSON", "a JSON details file", "invalid JSON in "+named)
			if df.Seq > 0 {
				o = o.At(df.Seq) // its record: the lint finding on it is this failure's
			}
			return o
		}
		if !df.Inside {
			return conform.Mismatch("the details file is outside the scratch directory", "a path inside the scratch directory", named)
		}
		if !df.Exists {
			return conform.Mismatch("the details file does not exist", named+" written before exit", "missing")
		}
		return conform.Passf("details file %s", df.Path)
	},
}

var aopOutDetailsFields = &conform.Check{
	ID:          "aop-output/details/fields",
	Family:      "happy-path",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "aop-output-1.0.0 §Details File Format",
	Requirement: "The details file (JSON) should include aop_version, agent_id, task, timestamp and results; a details file that is not .json (Markdown, a diff, a log) is not judged.",
	Lint:        []string{"AOPOUT-FILE-"},
	After:       []string{"aop-output/details/file"},
	Bad:         `{"results":{...}} only`,
	Good:        `{"aop_version":"1.0.0","agent_id":"search-1","task":"…","timestamp":"…","results":{...}}`,
	Run: func(s *conform.Session) conform.Outcome {
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
		d := orZero(spec.DecodeDetails(s.Records[df.Seq-1].Msg))
		var missing []string
		for _, k := range []string{"aop_version", "agent_id", "task", "timestamp", "results"} {
			if !d.HasValue(k) {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return conform.Mismatch("the details file lacks fields", "aop_version, agent_id, task, timestamp, results", "missing: "+strings.Join(missing, ", ")).At(df.Seq)
		}
		return conform.Passf("details file complete")
	},
}
