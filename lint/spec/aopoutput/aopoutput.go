// Package aopoutput is the one home of the Agent Output Protocol 1.0.0's
// computations (specs/aop-output-1.0.0.md): the markers and their order, the
// report's structure, the summary limits by task type, bullets and statuses. The
// linter (lint/aopoutput), the reference engine (conform/engine/aopoutput), the
// conformance checks (conform/checks) and mockagent all call it; it imports
// neither the linter's rules nor conform (primitives in, values out).
//
// It is also the home of the protocol's JSON (wire.go): the binding's task
// line (TaskLine, DecodeTaskLine) and the details file (Details,
// DecodeDetails, §Details File Format), typed structs read as aoplint reads
// them (lint/jsonread through lint/spec/wire: keys exactly as spelled, a member
// of another JSON type than the spec's left zero). Those two are its only
// imports under lint/.
package aopoutput

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of §AOP Format Specification and §Validation Checklist.
const (
	// MaxTask: "[AOP:TASK] {brief task description, max 50 chars}".
	MaxTask = 50
	// MaxBullets: "{1-5 bullet points of key findings}".
	MaxBullets = 5
	// SoftLimit: "{Max 500 characters total}" (the format).
	SoftLimit = 500
	// HardLimit: "[AOP:SUMMARY] is present and under 600 chars" (the checklist);
	// the spec's parseAOPOutput keeps only the first 600 characters.
	HardLimit = 600
)

// TaskType is one row of §Summary Length Limits by Task Type.
type TaskType struct {
	Name  string // the row as the table names it
	Limit int    // max summary characters
}

// The rows of §Summary Length Limits by Task Type, each written once: the
// table's names for a row are TaskTypes' keys.
var (
	rowSearch   = TaskType{"Search/Explore", 500}
	rowAnalysis = TaskType{"Analysis", 600}
	rowCode     = TaskType{"Code Changes", 300}
	rowTests    = TaskType{"Test Results", 400}
	rowBuild    = TaskType{"Build Output", 200}
	rowDocs     = TaskType{"Documentation", 500}
)

// TaskTypes are the rows of §Summary Length Limits by Task Type, by the names a
// task line's task_type (and aoplint's --task-type) may use.
var TaskTypes = map[string]TaskType{
	"search":        rowSearch,
	"explore":       rowSearch,
	"analysis":      rowAnalysis,
	"code":          rowCode,
	"code-changes":  rowCode,
	"test":          rowTests,
	"tests":         rowTests,
	"test-results":  rowTests,
	"build":         rowBuild,
	"build-output":  rowBuild,
	"documentation": rowDocs,
	"docs":          rowDocs,
}

// LookupTaskType returns the row of a task type name (case and surrounding space
// ignored).
func LookupTaskType(name string) (TaskType, bool) {
	t, ok := TaskTypes[strings.ToLower(strings.TrimSpace(name))]
	return t, ok
}

// SummaryLimit is the summary limit for a task type: its row's limit, or
// SoftLimit (the format's "Max 500 characters total") for a name the table does
// not have; known says which.
func SummaryLimit(taskType string) (limit int, known bool) {
	if t, ok := LookupTaskType(taskType); ok {
		return t.Limit, true
	}
	return SoftLimit, false
}

// TaskTypeNames lists the task type names, sorted.
func TaskTypeNames() []string {
	return slices.Sorted(maps.Keys(TaskTypes))
}

// Markers in the order the spec's format gives them. METRICS is optional.
var Markers = []string{"START", "TASK", "SUMMARY", "DETAILS_FILE", "METRICS", "STATUS", "END"}

// Rank is a marker's position in Markers (ok false for a marker AOP 1.0.0 does not
// know).
func Rank(name string) (int, bool) {
	// A switch, not a scan of Markers: the rules ask it of every marker of
	// every report (TestRank holds it to Markers).
	switch name {
	case "START":
		return 0, true
	case "TASK":
		return 1, true
	case "SUMMARY":
		return 2, true
	case "DETAILS_FILE":
		return 3, true
	case "METRICS":
		return 4, true
	case "STATUS":
		return 5, true
	case "END":
		return 6, true
	}
	return 0, false
}

// Required reports whether every report must have the marker (all but METRICS).
func Required(name string) bool {
	_, ok := Rank(name)
	return ok && name != "METRICS"
}

// ValidStatus reports whether s is a status of the format: success, failure or
// partial (lower case, as written).
func ValidStatus(s string) bool {
	switch s {
	case "success", "failure", "partial":
		return true
	}
	return false
}

// markerAt matches a marker at the start of line, blanks before it allowed:
// [AOP:NAME] with NAME in upper case letters and _ (the regexp
// ^[ \t]*\[AOP:([A-Z_]+)\], its test's oracle). It returns the bounds of NAME
// and the offset just past ']'. (No regexp is compiled in this package: each
// cost every aoplint run its compilation at start.)
func markerAt(line string) (nameStart, nameEnd, end int, ok bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if !strings.HasPrefix(line[i:], "[AOP:") {
		return 0, 0, 0, false
	}
	i += len("[AOP:")
	nameStart = i
	for i < len(line) && (line[i] >= 'A' && line[i] <= 'Z' || line[i] == '_') {
		i++
	}
	if i == nameStart || i >= len(line) || line[i] != ']' {
		return 0, 0, 0, false
	}
	return nameStart, i, i + 1, true
}

// ParseMarker reads "[AOP:NAME] value" from one line; value is trimmed.
func ParseMarker(line string) (name, value string, ok bool) {
	ns, ne, end, ok := markerAt(line)
	if !ok {
		return "", "", false
	}
	return line[ns:ne], TrimJS(line[end:]), true
}

// bulletLen is the length of the bullet mark at the start of s and the one blank
// after it (`^(?:[-*+•–]|\d{1,2}[.)])(?:\s|$)`, \s being [\t\n\f\r ]), or -1
// when s does not start with a bullet.
func bulletLen(s string) int {
	n := 0
	switch {
	case s == "":
		return -1
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		n = 1
	case strings.HasPrefix(s, "•") || strings.HasPrefix(s, "–"):
		n = len("•")
	default:
		for n < len(s) && n < 3 && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n == 3 || n >= len(s) || (s[n] != '.' && s[n] != ')') {
			return -1
		}
		n++
	}
	if n == len(s) {
		return n
	}
	switch s[n] {
	case '\t', '\n', '\f', '\r', ' ':
		return n + 1
	}
	return -1
}

// TrimBlanksLeft is strings.TrimLeft(s, " \t") (the indentation of a line), with
// no cutset to build per call.
func TrimBlanksLeft(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}

// TrimBlanksRight is strings.TrimRight(s, " \t"), with no cutset to build per
// call.
func TrimBlanksRight(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return s[:i]
}

// IsBullet reports whether a summary line (without its indentation) is a bullet
// point: -, *, +, •, – or a number with . or ) followed by a blank or the line end.
func IsBullet(s string) bool { return bulletLen(s) >= 0 }

// Marker is one [AOP:NAME] at the start of a line of a report.
type Marker struct {
	Name   string // NAME as written (upper case letters and _)
	Off    int    // offset of '['
	ValOff int    // offset of the value's first byte (after the marker and blanks)
	Value  string // the rest of the line, trimmed
	Next   int    // offset where the next marker's line begins (or len(Text))
}

// Line is one line of a report.
type Line struct {
	Off  int
	Text string // without the line end (\n or \r\n)
}

// Report is a parsed report: its lines and its markers, with byte offsets.
type Report struct {
	Text    []byte
	Lines   []Line
	Markers []Marker

	// src is the copy of Text whose substrings are the lines (Parse's; ""
	// for a report built otherwise). The lines of a parsed report must not
	// be changed.
	src string

	// The summary, made by the first call of Summary (the rules ask for it up to
	// six times per report).
	summarized  bool
	summary     []SummaryLine
	summaryText string

	// first[k] is the first marker of rank k (nil: none), made
	// by Parse for the markers it found (firstOf, nFirst): First answers from
	// it while Markers is still that slice, and searches the markers of a
	// report built otherwise, or whose Markers were replaced. (The markers of a
	// parsed report must not be changed in place.)
	first   [markerKinds]*Marker
	firstOf *Marker
	nFirst  int
}

// markerKinds is len(Markers) (TestRank holds them equal).
const markerKinds = 7

// Parse splits a report into lines and finds its markers. It never fails: what is
// missing shows in the result. A leading byte-order mark is skipped.
func Parse(text []byte) *Report {
	src := string(text) // one copy, whose substrings are the lines
	r := &Report{Text: text, src: src}
	off := 0
	if bytes.HasPrefix(text, []byte("\xEF\xBB\xBF")) {
		off = 3
	}
	// The lines counted: their slice is made once, at its size. The markers
	// (one a line at most) are gathered in room on the stack for a report's
	// usual dozen (growing past it on the heap) and copied at their number:
	// no pass to count them, and no room kept for a line that has none.
	lines := bytes.Count(text[off:], []byte("\n")) + 1
	r.Lines = make([]Line, 0, lines)
	var room [usualMarkers]Marker
	markers := room[:0]
	for off <= len(text) {
		end := bytes.IndexByte(text[off:], '\n')
		next := len(text) + 1
		if end < 0 {
			end = len(text)
		} else {
			end += off
			next = end + 1
		}
		s := strings.TrimSuffix(src[off:end], "\r")
		r.Lines = append(r.Lines, Line{Off: off, Text: s})
		if ns, ne, mend, ok := markerAt(s); ok {
			rest := s[mend:]
			trimmed := TrimBlanksLeft(rest)
			markers = append(markers, Marker{Name: s[ns:ne], Off: off + strings.IndexByte(s, '['),
				ValOff: off + mend + len(rest) - len(trimmed), Value: TrimJS(trimmed)})
		}
		off = next
	}
	r.Markers = make([]Marker, len(markers))
	copy(r.Markers, markers)
	for i := range r.Markers {
		if i+1 < len(r.Markers) {
			r.Markers[i].Next = r.Markers[i+1].Off
		} else {
			r.Markers[i].Next = len(text)
		}
	}
	for i := len(r.Markers) - 1; i >= 0; i-- {
		if k, ok := Rank(r.Markers[i].Name); ok {
			r.first[k] = &r.Markers[i]
		}
	}
	if len(r.Markers) > 0 {
		r.firstOf, r.nFirst = &r.Markers[0], len(r.Markers)
	}
	return r
}

// usualMarkers is the room Parse makes for markers: a report has seven kinds
// (Markers), and a few may repeat or be unknown.
const usualMarkers = 12

// First returns the first marker named name, or nil: for a marker AOP 1.0.0
// knows, one load from the table Parse made.
func (r *Report) First(name string) *Marker {
	if k, ok := Rank(name); ok && r.nFirst > 0 && r.nFirst == len(r.Markers) && r.firstOf == &r.Markers[0] {
		return r.first[k]
	}
	return r.firstByName(name)
}

// firstByName is First by a search of the markers (a marker AOP 1.0.0 does not
// know, or a report not made by Parse, or whose Markers were replaced).
func (r *Report) firstByName(name string) *Marker {
	for i := range r.Markers {
		if r.Markers[i].Name == name {
			return &r.Markers[i]
		}
	}
	return nil
}

// Has reports whether the report has the marker.
func (r *Report) Has(name string) bool { return r.First(name) != nil }

// SummaryLine is one non-empty line of the summary.
type SummaryLine struct {
	Off    int
	Text   string // the line, without its indentation and trailing blanks
	Indent int
	Bullet bool
}

// Summary returns the summary's non-empty lines (the SUMMARY marker's own value
// first, then every line up to the next marker) and its text as the spec's
// parseAOPOutput reads it (trimmed, blank lines included).
//
// It is computed once per report; the lines are shared by every caller, which
// must not modify them.
func (r *Report) Summary() (lines []SummaryLine, text string) {
	if !r.summarized {
		r.summary, r.summaryText = r.makeSummary()
		r.summarized = true
	}
	return r.summary, r.summaryText
}

func (r *Report) makeSummary() (lines []SummaryLine, text string) {
	m := r.First("SUMMARY")
	if m == nil {
		return nil, ""
	}
	// The summary's lines: the marker's own (r.Lines[lo-1]) and those after it
	// up to the next marker, body (the lines are in the order of their offsets).
	lo := 0
	for lo < len(r.Lines) && r.Lines[lo].Off <= m.Off {
		lo++
	}
	hi := lo
	for hi < len(r.Lines) && r.Lines[hi].Off < m.Next {
		hi++
	}
	body := r.Lines[lo:hi]
	lines = make([]SummaryLine, 0, len(body)+1)
	if m.Value != "" {
		lines = append(lines, SummaryLine{Off: m.ValOff, Text: m.Value, Bullet: IsBullet(m.Value)})
	}
	for _, l := range body {
		t := TrimBlanksLeft(l.Text)
		if strings.TrimSpace(t) == "" {
			continue
		}
		lines = append(lines, SummaryLine{Off: l.Off + len(l.Text) - len(t), Text: TrimBlanksRight(t), Indent: len(l.Text) - len(t), Bullet: IsBullet(t)})
	}
	if lo == 0 {
		return lines, r.joinSummary(m, body) // no line holds the marker: a report not made by Parse
	}
	return lines, r.summaryTextOf(m, r.Lines[lo-1], body)
}

// summaryTextOf is the summary's text as the spec's parseAOPOutput reads it: the
// marker's value and the lines of body joined by "\n", trimmed. When the value
// ends its line (mline) and each of these lines ends in the text at a "\n" (no
// "\r" cut, no blank after the value), the join is the text from the value to
// the end of the last line, and no string is made.
func (r *Report) summaryTextOf(m *Marker, mline Line, body []Line) string {
	if len(body) == 0 {
		return m.Value // trimmed already
	}
	end := mline.Off + len(mline.Text)
	if r.src == "" || m.ValOff+len(m.Value) != end {
		return r.joinSummary(m, body)
	}
	for _, l := range body {
		if l.Off != end+1 {
			return r.joinSummary(m, body)
		}
		end = l.Off + len(l.Text)
	}
	return TrimJS(r.src[m.ValOff:end])
}

// joinSummary is summaryTextOf by joining the value and the lines.
func (r *Report) joinSummary(m *Marker, body []Line) string {
	parts := make([]string, 0, len(body)+1)
	parts = append(parts, m.Value)
	for _, l := range body {
		parts = append(parts, l.Text)
	}
	return TrimJS(strings.Join(parts, "\n"))
}

// Bullets counts the bullet points among summary lines.
func Bullets(lines []SummaryLine) int {
	n := 0
	for _, l := range lines {
		if l.Bullet {
			n++
		}
	}
	return n
}

// Metrics reads "key: value, key: value" as the spec's parseAOPOutput does.
//
// Each comma-separated pair is split at its colons, and the value is what lies
// between the first and the second (as the spec's split(':')[1]); the pairs are
// walked in place, with no slice of the parts.
func Metrics(v string) map[string]string {
	out := map[string]string{}
	for _, p := range MetricPairs(nil, v) {
		out[p.Key] = p.Value
	}
	return out
}

// MetricPart reads one comma-separated part of METRICS as the spec's
// parseAOPOutput does (`const [key, value] = pair.split(':').map(s => s.trim())`):
// the key is the text before the first colon and the value the text between
// the first and the second, both trimmed as JavaScript trims (TrimJS). The
// parser keeps the pair when both are non-empty. cut says that a second colon
// ended the value: the text after it is dropped. A part without a colon has no
// value.
func MetricPart(part string) (key, value string, cut bool) {
	k, after, found := strings.Cut(part, ":")
	if !found {
		return TrimJS(k), "", false
	}
	val, _, cut := strings.Cut(after, ":")
	return TrimJS(k), TrimJS(val), cut
}

// TrimJS is s without the leading and trailing white space that JavaScript's
// String.prototype.trim removes, as the spec's parseAOPOutput trims each value:
// ECMAScript's WhiteSpace (tab, vertical tab, form feed, U+FEFF and every space
// separator, Zs) and LineTerminator (line feed, carriage return, U+2028, U+2029).
// It differs from strings.TrimSpace on two runes: U+0085, which it keeps, and
// U+FEFF, which it removes.
func TrimJS(s string) string {
	start := 0
	for start < len(s) {
		if c := s[start]; c < utf8.RuneSelf {
			if !asciiSpace(c) {
				break
			}
			start++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[start:])
		if !isJSSpace(r) {
			break
		}
		start += n
	}
	stop := len(s)
	for stop > start {
		if c := s[stop-1]; c < utf8.RuneSelf {
			if !asciiSpace(c) {
				break
			}
			stop--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s[start:stop])
		if !isJSSpace(r) {
			break
		}
		stop -= n
	}
	return s[start:stop]
}

// HasJSSpace says whether s holds a rune JavaScript counts as white space
// (\s, trim): where the spec's parser's \S+ stops (DETAILS_FILE).
func HasJSSpace(s string) bool {
	return strings.IndexFunc(s, IsJSSpace) >= 0
}

// JSWord is what the spec's parser's \s*(\S+) reads from s: the first run of
// runes that are not JavaScript white space.
func JSWord(s string) string {
	s = TrimJS(s)
	if i := strings.IndexFunc(s, IsJSSpace); i >= 0 {
		return s[:i]
	}
	return s
}

// IsJSSpace says whether r is ECMAScript white space or a line terminator
// (what \s matches and trim removes).
func IsJSSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSpace(byte(r))
	}
	return isJSSpace(r)
}

// asciiSpace says whether c is one of the ASCII runes JavaScript trims (the
// same as strings.TrimSpace's).
func asciiSpace(c byte) bool {
	return c == ' ' || c >= '\t' && c <= '\r'
}

// isJSSpace says whether a rune past ASCII is ECMAScript white space or a line
// terminator.
func isJSSpace(r rune) bool {
	switch r {
	case 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// Pair is a key of METRICS and its value.
type Pair struct{ Key, Value string }

// MetricPairs appends to dst the pairs of Metrics(v), sorted by key: one per
// key, with the value the map has (the last pair's), without a map.
func MetricPairs(dst []Pair, v string) []Pair {
	start := len(dst)
	for rest, more := v, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		if k, val, _ := MetricPart(part); k != "" && val != "" {
			dst = append(dst, Pair{k, val})
		}
	}
	// Sorted stably, the pairs of a key keep their order: the last one stays.
	ps := dst[start:]
	slices.SortStableFunc(ps, func(a, b Pair) int { return strings.Compare(a.Key, b.Key) })
	n := 0
	for i, p := range ps {
		if i+1 < len(ps) && ps[i+1].Key == p.Key {
			continue
		}
		ps[n] = p
		n++
	}
	clear(ps[n:])
	return dst[:start+n]
}

// BulletText is a bullet line without its bullet mark, trimmed.
func BulletText(s string) string {
	if n := bulletLen(s); n > 0 {
		s = s[n:]
	}
	return strings.TrimSpace(s)
}

// MissingRequired lists the markers every report must have (Required) that the
// report lacks, in the format's order. A report with none missing has every
// marker the Validation Checklist asks for ("Output includes [AOP:START] marker"
// … "[AOP:END] marker present"): a parent can take its status.
func (r *Report) MissingRequired() []string {
	var out []string
	for _, m := range Markers {
		if Required(m) && !r.Has(m) {
			out = append(out, m)
		}
	}
	return out
}
