// Package aopoutput lints the Agent Output Protocol 1.0.0 (CCASP): the text report
// an agent returns between [AOP:START] and [AOP:END], and the JSON details file it
// names in [AOP:DETAILS_FILE].
//
// The report is parsed into markers with their byte offsets; the rules report at
// the marker's line. For the schema rule the parser's result is turned into JSON
// (the shape of the spec's own parseAOPOutput result, plus the bullets) and
// validated with schemas/aop-output/report.schema.json.
package aopoutput

import (
	"bytes"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	"strconv"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// ID is the protocol's identifier.
const ID = "aop-output"

// Kinds of aop-output input.
const (
	KindReport  = "report"  // the marker text
	KindDetails = "details" // the JSON details file
	KindTask    = "task"    // the task an agent is given on stdin (aopkit binding, not the spec)
)

// Dialects the detector names.
const (
	// DialectThreeMarker: prompts in the wild that ask only for SUMMARY,
	// DETAILS_FILE and STATUS.
	DialectThreeMarker = "SUMMARY/DETAILS_FILE/STATUS-only prompt dialect"
	// DialectFiles: other projects' SUCCESS|PARTIAL|BLOCKED|FAILED statuses with
	// [AOP:FILES] (and [AOP:ISSUES]) markers.
	DialectFiles = "SUCCESS|PARTIAL|BLOCKED|FAILED + [AOP:FILES] dialect"
	// DialectUpperStatus: a spec report whose status is written in upper case.
	DialectUpperStatus = "uppercase status variant"
)

// Markers in the order the spec's format gives them. METRICS is optional.
var Markers = spec.Markers

// rankAt is a marker's place in Markers (spec.Rank), 0 for a marker the
// format does not define.
func rankAt(name string) int {
	k, _ := spec.Rank(name)
	return k
}

// Protocol is aop-output's lint-level descriptor (listed in lint/all).
var Protocol = &lint.Protocol{
	ID:         ID,
	Name:       "Agent Output Protocol 1.0.0 (CCASP)",
	Spec:       "aop-output-1.0.0",
	SpecFile:   "aop-output-1.0.0.md",
	Version:    "1.0.0",
	Kinds:      []string{KindReport, KindDetails, KindTask},
	Detect:     Detect,
	DetectText: DetectText,
	ParseText:  ParseText,
	Schema:     SchemaFile,
	// The details file's members.
	Markers:        []lint.Marker{{Key: "agent_id"}, {Key: "task_type"}},
	TextDirectives: true,
	// The details file's own metadata object, at the top level.
	Extensions:   []string{"metadata"},
	ExtensionsAt: func(ptr string) bool { return ptr == "" },
}

// SchemaFile names the schema of a kind.
func SchemaFile(kind string) string {
	switch kind {
	case KindReport:
		return "aop-output/report.schema.json"
	case KindDetails:
		return "aop-output/details.schema.json"
	case KindTask:
		return "aop-output/task.schema.json"
	}
	return ""
}

// pointers of each marker's value in the report's JSON form.
var pointerOf = map[string]string{
	"START": "/timestamps/start", "TASK": "/task", "SUMMARY": "/summary", "DETAILS_FILE": "/detailsFile",
	"METRICS": "/metrics", "STATUS": "/status", "END": "/timestamps/end",
}

// Detect recognises a details file: JSON with aop_version 1.x and the details
// members. Given --protocol aop-output, any JSON value is read as a details file.
func Detect(root *jsonread.Node, _ string) (kind, dialect string, confidence int) {
	if root == nil || root.Kind != jsonread.Object {
		return KindDetails, "", 0
	}
	if root.Has("message_type") {
		return KindDetails, "", 0 // aop2 (or its v1)
	}
	if len(root.Members) == 2 && root.Get("task_type").IsString() && root.Get("task").IsString() {
		return KindTask, "", 50 // the aopkit binding's task line: {"task":"...","task_type":"..."}
	}
	// Each claim below needs an aop_version or results: a line with neither
	// (most lines of a stream) is answered without the other members.
	v, results := root.Get("aop_version"), root.Has("results")
	if v == nil && !results {
		return KindDetails, "", 0
	}
	shape := results || root.Has("agent_id") || (root.Has("task") && root.Has("duration_ms"))
	switch {
	case v.IsString() && strings.HasPrefix(v.Str, "1.") && shape:
		return KindDetails, "", 95
	case results && (root.Has("agent_id") || root.Has("task")):
		return KindDetails, "", 95 // the details shape, whatever its aop_version says
	case shape && v != nil:
		return KindDetails, "", 60
	}
	return KindDetails, "", 0
}

// DetectText recognises a report by its markers at the start of lines.
func DetectText(text []byte) (kind, dialect string, confidence int) {
	kind, dialect, confidence, _ = ParseText(text)
	return kind, dialect, confidence
}

// ParseText is DetectText that also returns the report it parsed (nil when it
// is none), kept by the driver as the message's Parsed.
func ParseText(text []byte) (kind, dialect string, confidence int, parsed any) {
	if !bytes.Contains(text, []byte("[AOP:")) {
		return "", "", 0, nil
	}
	r := parse(text)
	if len(r.Markers) == 0 {
		return "", "", 0, nil
	}
	knownN := 0
	for _, m := range r.Markers {
		if _, ok := spec.Rank(m.Name); ok {
			knownN++
		}
	}
	switch {
	case r.First("START") != nil:
		confidence = 95
	case knownN > 0:
		confidence = 85
	default:
		return "", "", 0, nil // only markers AOP 1.0.0 does not know: a log line such as "[AOP:INFO] ..."
	}
	memo := &reportMemo{r: r, dialect: dialectOf(r), dialectDone: true}
	return KindReport, memo.dialect, confidence, memo
}

// ---- the report parser (lint/spec/aopoutput) ----

type (
	report      = spec.Report
	marker      = spec.Marker
	summaryLine = spec.SummaryLine
)

func parse(text []byte) *report { return spec.Parse(text) }

// dialect names the upstream dialect the report is written in, or "".
func dialectOf(r *report) string {
	for i := range r.Markers {
		if n := r.Markers[i].Name; n == "FILES" || n == "ISSUES" {
			return DialectFiles
		}
	}
	st, status := r.First("STATUS"), ""
	if st != nil {
		status = firstWord(st.Value)
	}
	switch status {
	case "BLOCKED", "FAILED":
		return DialectFiles
	}
	if !r.Has("START") && !r.Has("TASK") && !r.Has("END") && (r.Has("SUMMARY") || r.Has("DETAILS_FILE") || st != nil) {
		return DialectThreeMarker
	}
	switch status {
	case "SUCCESS", "FAILURE", "PARTIAL":
		return DialectUpperStatus
	}
	return ""
}

// firstWord is the run of ASCII letters, digits and _ that s starts with (a
// byte of any other rune ends it).
func firstWord(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return s[:i]
		}
	}
	return s
}

// ---- shared helpers ----

// parsed returns the report of a text message. Every report rule asks for it, so
// it is parsed once and kept on the message.
func parsed(p *lint.Pass) *report { return memoOf(p).r }

// reportMemo is a report as its rules share it, kept as the message's Parsed:
// the parsed report, and what more than one rule reads of it, each made by the
// first rule that asks (the rules of a message run one after the other).
type reportMemo struct {
	r *report

	dialect     string // dialectOf(r)
	dialectDone bool

	free     []summaryLine // freeText(r)
	part     []string
	freeDone bool

	start, end isoTime // the values of the first START and END markers
	timesDone  bool
}

// isoTime is what spec.ParseTime makes of a marker's value.
type isoTime struct {
	t    time.Time
	zone isotime.Zone
	ok   bool
}

// memoOf returns the report memo of p's message, parsing the report if the
// driver did not (ParseText makes it).
func memoOf(p *lint.Pass) *reportMemo {
	if m, ok := p.Msg.Parsed.(*reportMemo); ok {
		return m
	}
	m := &reportMemo{r: parse(p.Msg.Raw)}
	p.Msg.Parsed = m
	return m
}

// dialectOf returns dialectOf of p's report.
func (m *reportMemo) dialectOf() string {
	if !m.dialectDone {
		m.dialect, m.dialectDone = dialectOf(m.r), true
	}
	return m.dialect
}

// freeText returns freeText of p's report (shared: not to be modified).
func (m *reportMemo) freeText() ([]summaryLine, []string) {
	if !m.freeDone {
		m.free, m.part = freeText(m.r)
		m.freeDone = true
	}
	return m.free, m.part
}

// times returns spec.ParseTime of the values of the first START and END markers (not
// ok for a missing one).
func (m *reportMemo) times() (start, end isoTime) {
	if !m.timesDone {
		if s := m.r.First("START"); s != nil {
			m.start.t, m.start.zone, m.start.ok = spec.ParseTime(s.Value)
		}
		if e := m.r.First("END"); e != nil {
			m.end.t, m.end.zone, m.end.ok = spec.ParseTime(e.Value)
		}
		m.timesDone = true
	}
	return m.start, m.end
}

// reportAt reports at a byte offset of the report and records the pointer of the
// value in the report's JSON form (so that claims and the JSON output name it).
func reportAt(p *lint.Pass, sev lint.Severity, off int, pointer, format string, args ...any) {
	p.ReportOffsetf(sev, off, format, args...)
	if ds := p.Diagnostics(); len(ds) > 0 {
		ds[len(ds)-1].Pointer = pointer
	}
}

// quote shortens a value for a message.
func quote(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return strconv.Quote(s)
}
