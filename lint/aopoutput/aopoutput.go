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
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
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
var Markers = []string{"START", "TASK", "SUMMARY", "DETAILS_FILE", "METRICS", "STATUS", "END"}

var rank = map[string]int{}

func init() {
	for i, m := range Markers {
		rank[m] = i
	}
	lint.RegisterProtocol(&lint.Protocol{
		ID:         ID,
		Name:       "Agent Output Protocol 1.0.0 (CCASP)",
		Spec:       "aop-output-1.0.0",
		Kinds:      []string{KindReport, KindDetails, KindTask},
		Detect:     Detect,
		DetectText: DetectText,
		Schema:     SchemaFile,
	})
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
	if t := root.Get("task_type"); t.IsString() && root.Get("task").IsString() && len(root.Members) == 2 {
		return KindTask, "", 50 // the aopkit binding's task line: {"task":"...","task_type":"..."}
	}
	shape := root.Has("results") || root.Has("agent_id") || (root.Has("task") && root.Has("duration_ms"))
	v := root.Get("aop_version")
	switch {
	case v.IsString() && strings.HasPrefix(v.Str, "1.") && shape:
		return KindDetails, "", 95
	case root.Has("results") && (root.Has("agent_id") || root.Has("task")):
		return KindDetails, "", 95 // the details shape, whatever its aop_version says
	case shape && v != nil:
		return KindDetails, "", 60
	}
	return KindDetails, "", 0
}

// DetectText recognises a report by its markers at the start of lines.
func DetectText(text []byte) (kind, dialect string, confidence int) {
	if !bytes.Contains(text, []byte("[AOP:")) {
		return "", "", 0
	}
	r := parse(text)
	if len(r.markers) == 0 {
		return "", "", 0
	}
	knownN := 0
	for _, m := range r.markers {
		if _, ok := rank[m.name]; ok {
			knownN++
		}
	}
	switch {
	case r.first("START") != nil:
		confidence = 95
	case knownN > 0:
		confidence = 85
	default:
		return "", "", 0 // only markers AOP 1.0.0 does not know: a log line such as "[AOP:INFO] ..."
	}
	return KindReport, r.dialect(), confidence
}

// ---- the report parser ----

// marker is one [AOP:NAME] at the start of a line.
type marker struct {
	name   string // NAME as written (upper case letters and _)
	off    int    // offset of '['
	valOff int    // offset of the value's first byte (after the marker and blanks)
	value  string // the rest of the line, trimmed
	next   int    // offset where the next marker's line begins (or len(text))
}

// line is one line of the report.
type line struct {
	off  int
	text string // without the line end
}

type report struct {
	text    []byte
	lines   []line
	markers []marker
}

// matchMarker matches the start of a line against ^[ \t]*\[AOP:([A-Z_]+)\] and
// returns the name's bounds and the end of the match.
func matchMarker(s string) (name0, name1, end int, ok bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if !strings.HasPrefix(s[i:], "[AOP:") {
		return 0, 0, 0, false
	}
	i += len("[AOP:")
	name0 = i
	for i < len(s) && (s[i] >= 'A' && s[i] <= 'Z' || s[i] == '_') {
		i++
	}
	if i == name0 || i >= len(s) || s[i] != ']' {
		return 0, 0, 0, false
	}
	return name0, i, i + 1, true
}

func parse(text []byte) *report {
	r := &report{text: text,
		lines:   make([]line, 0, bytes.Count(text, []byte("\n"))+1),
		markers: make([]marker, 0, bytes.Count(text, []byte("[AOP:")))}
	str := string(text) // one copy, whose substrings the lines share
	off := 0
	if bytes.HasPrefix(text, []byte("\xEF\xBB\xBF")) {
		off = 3
	}
	for off <= len(text) {
		end := bytes.IndexByte(text[off:], '\n')
		next := len(text) + 1
		if end < 0 {
			end = len(text)
		} else {
			end += off
			next = end + 1
		}
		s := strings.TrimSuffix(str[off:end], "\r")
		r.lines = append(r.lines, line{off: off, text: s})
		if n0, n1, mend, ok := matchMarker(s); ok {
			rest := s[mend:]
			trimmed := strings.TrimLeft(rest, " \t")
			r.markers = append(r.markers, marker{name: s[n0:n1], off: off + strings.IndexByte(s, '['),
				valOff: off + mend + len(rest) - len(trimmed), value: strings.TrimSpace(trimmed)})
		}
		off = next
	}
	for i := range r.markers {
		if i+1 < len(r.markers) {
			r.markers[i].next = r.markers[i+1].off
		} else {
			r.markers[i].next = len(text)
		}
	}
	return r
}

// first returns the first marker named name, or nil.
func (r *report) first(name string) *marker {
	for i := range r.markers {
		if r.markers[i].name == name {
			return &r.markers[i]
		}
	}
	return nil
}

func (r *report) has(name string) bool { return r.first(name) != nil }

// dialect names the upstream dialect the report is written in, or "".
func (r *report) dialect() string {
	if r.has("FILES") || r.has("ISSUES") {
		return DialectFiles
	}
	if st := r.first("STATUS"); st != nil {
		switch firstWord(st.value) {
		case "BLOCKED", "FAILED":
			return DialectFiles
		}
	}
	if !r.has("START") && !r.has("TASK") && !r.has("END") && (r.has("SUMMARY") || r.has("DETAILS_FILE") || r.has("STATUS")) {
		return DialectThreeMarker
	}
	if st := r.first("STATUS"); st != nil {
		switch firstWord(st.value) {
		case "SUCCESS", "FAILURE", "PARTIAL":
			return DialectUpperStatus
		}
	}
	return ""
}

// summaryLine is one non-empty line of the summary.
type summaryLine struct {
	off    int
	text   string // the line, without its indentation
	indent int
	bullet bool
}

// summary returns the summary's lines (the SUMMARY marker's own value first, then
// every line up to the next marker) and its text as the spec's parser reads it
// (trimmed).
func (r *report) summary() (lines []summaryLine, text string) {
	m := r.first("SUMMARY")
	if m == nil {
		return nil, ""
	}
	var parts []string
	if m.value != "" {
		lines = append(lines, summaryLine{off: m.valOff, text: m.value, bullet: isBullet(m.value)})
	}
	parts = append(parts, m.value)
	for _, l := range r.lines {
		if l.off <= m.off || l.off >= m.next {
			continue
		}
		parts = append(parts, l.text)
		t := strings.TrimLeft(l.text, " \t")
		if strings.TrimSpace(t) == "" {
			continue
		}
		lines = append(lines, summaryLine{off: l.off + len(l.text) - len(t), text: strings.TrimRight(t, " \t"), indent: len(l.text) - len(t), bullet: isBullet(t)})
	}
	return lines, strings.TrimSpace(strings.Join(parts, "\n"))
}

var bulletRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[-*+•–]|\d{1,2}[.)])(?:\s|$)`) })

func isBullet(s string) bool { return bulletRe().MatchString(s) }

func firstWord(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z')
	})
	if i < 0 {
		return s
	}
	return s[:i]
}

// metrics reads "key: value, key: value" as the spec's parser does.
func metrics(v string) map[string]string {
	out := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		kv := strings.Split(pair, ":")
		if len(kv) < 2 {
			continue
		}
		k, val := strings.TrimSpace(kv[0]), strings.TrimSpace(kv[1])
		if k != "" && val != "" {
			out[k] = val
		}
	}
	return out
}

// ---- shared helpers ----

// parsed returns the report of a text message. Every report rule asks for it, so
// it is parsed once and kept on the message.
func parsed(p *lint.Pass) *report {
	if r, ok := p.Msg.Parsed.(*report); ok {
		return r
	}
	r := parse(p.Msg.Raw)
	p.Msg.Parsed = r
	return r
}

// reportAt reports at a byte offset of the report and records the pointer of the
// value in the report's JSON form (so that claims and the JSON output name it).
func reportAt(p *lint.Pass, sev lint.Severity, off int, pointer, format string, args ...any) {
	p.ReportOffsetf(sev, off, format, args...)
	if ds := p.Diagnostics(); len(ds) > 0 {
		ds[len(ds)-1].Pointer = pointer
	}
}

var isoForm = isotime.Form{Seps: "Tt", MaxFrac: 9}

// parseISO reads an ISO 8601 date-time; zone reports whether it names its offset
// (a time without one is read as UTC).
func parseISO(s string) (t time.Time, zone, ok bool) {
	g, match := isoForm.Match(s)
	if !match {
		return time.Time{}, false, false
	}
	num := func(x string) int { n, _ := strconv.Atoi(x); return n }
	year, mon, day, hh, mm := num(g[1]), num(g[2]), num(g[3]), num(g[4]), num(g[5])
	ss := 0
	if g[6] != "" {
		ss = num(g[6])
	}
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 {
		return time.Time{}, false, false
	}
	nsec := 0
	if g[7] != "" {
		nsec = num((g[7] + "000000000")[:9])
	}
	loc := time.UTC
	if z := g[8]; z != "" && z != "Z" && z != "z" {
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(z[1:], ":", "")
		off := num(digits[:2]) * 3600
		if len(digits) == 4 {
			off += num(digits[2:]) * 60
		}
		loc = time.FixedZone("", sign*off)
	}
	t = time.Date(year, time.Month(mon), day, hh, mm, ss, nsec, loc)
	if t.Day() != day {
		return time.Time{}, false, false
	}
	return t, g[8] != "", true
}

// quote shortens a value for a message.
func quote(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return strconv.Quote(s)
}
