package checks

import (
	"sort"

	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"

	"github.com/aopkit/aopkit/conform"
)

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

// aopOutputMemo is what the aop-output checks parse once per session
// (sessionMemo).
type aopOutputMemo struct {
	report   lazy[aopReport]
	taskType lazy[string]
}

// parseAOPReport is the report on the agent's stdout, parsed once per session:
// read only (its maps and slices are shared).
func parseAOPReport(s *conform.Session) aopReport {
	return memoOf(s).aopOutput.report.get(func() aopReport { return readAOPReport(s) })
}

func readAOPReport(s *conform.Session) aopReport {
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

// aopTaskType is the task type of the task line of attempt 1, lower case (""
// when none), decoded once per session.
func aopTaskType(s *conform.Session) string {
	return memoOf(s).aopOutput.taskType.get(func() string {
		if a := s.Attempt(1); a != nil {
			t, _ := spec.DecodeTaskLine(a.Input) // the string members even of a bad line
			return strings.ToLower(t.TaskType)
		}
		return ""
	})
}
