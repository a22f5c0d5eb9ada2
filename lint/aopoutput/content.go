package aopoutput

import (
	"strings"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// MaxFreeText bounds the text of a response outside its markers and summary
// (agent chatter, progress lines) before it counts as dumped output.
const MaxFreeText = 2000

// MarkerStray: nothing before START or after END.
var MarkerStray = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-MARKER-005", Protocol: ID, Kinds: reportKinds, Severity: lint.Warning, Run: checkStray})

// ContentDump: no file contents, stack traces or dumps anywhere in the response.
var ContentDump = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-CONTENT-001", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Run: checkContent})

func init() { lint.Register(MarkerStray, ContentDump) }

// freeText returns the non-empty lines of the report that are neither marker lines
// nor part of the summary, with the part they are in ("before", "work", "after").
func freeText(r *report) (lines []summaryLine, part []string) {
	// r.Markers are in text order, at most one a line (spec.Parse): one index
	// walks them along the lines to tell the marker lines, without a map of
	// their offsets.
	mi := 0
	return freeLines(r, func(off int) bool {
		for mi < len(r.Markers) && r.Markers[mi].Off < off {
			mi++
		}
		return mi < len(r.Markers) && r.Markers[mi].Off == off
	})
}

// freeLines is freeText with isMarker telling whether a marker starts at an
// offset (asked of each line that starts with "[AOP:" after blanks, in order).
func freeLines(r *report, isMarker func(off int) bool) (lines []summaryLine, part []string) {
	start, end, sum := r.First("START"), r.First("END"), r.First("SUMMARY")
	for _, l := range r.Lines {
		t := spec.TrimBlanksLeft(l.Text)
		if strings.TrimSpace(t) == "" {
			continue
		}
		if strings.HasPrefix(t, "[AOP:") && isMarker(l.Off+len(l.Text)-len(t)) {
			continue
		}
		if sum != nil && l.Off > sum.Off && l.Off < sum.Next {
			continue
		}
		where := "work"
		switch {
		case start != nil && l.Off < start.Off:
			where = "before"
		case end != nil && l.Off > end.Off:
			where = "after"
		}
		lines = append(lines, summaryLine{Off: l.Off + len(l.Text) - len(t), Text: spec.TrimBlanksRight(t), Indent: len(l.Text) - len(t), Bullet: spec.IsBullet(t)})
		part = append(part, where)
	}
	return lines, part
}

func checkStray(p *lint.Pass) {
	lines, part := memoOf(p).freeText()
	var before, after []summaryLine
	for i, l := range lines {
		switch part[i] {
		case "before":
			before = append(before, l)
		case "after":
			after = append(after, l)
		}
	}
	if len(before) > 0 {
		reportAt(p, lint.Warning, before[0].Off, "", "%d %s before [AOP:START] (%s): return only the AOP report; logs go to stderr or the details file", len(before), plural2(len(before), "line"), quote(before[0].Text))
	}
	if len(after) > 0 {
		reportAt(p, lint.Warning, after[0].Off, "", "%d %s after [AOP:END] (%s): return only the AOP report; logs go to stderr or the details file", len(after), plural2(len(after), "line"), quote(after[0].Text))
	}
}

func checkContent(p *lint.Pass) {
	lines, _ := memoOf(p).freeText()
	if len(lines) == 0 {
		return
	}
	for _, f := range findCode(lines) {
		reportAt(p, lint.Error, f.Off, "", "%s in the response outside the summary: file contents and code over 5 lines go in the details file", f.what)
	}
	if f, ok := findTrace(lines); ok {
		reportAt(p, lint.Error, f.Off, "", "a stack trace in the response (%s): name the error in the summary and put the trace in the details file", f.what)
	}
	n := 0
	for _, l := range lines {
		n += utf8.RuneCountInString(l.Text) + 1
	}
	if n > MaxFreeText {
		reportAt(p, lint.Error, lines[0].Off, "", "%d characters of output outside the markers and the summary (%d lines): results go in the details file, not in the response (at most %d characters of such text)", n, len(lines), MaxFreeText)
	}
}
