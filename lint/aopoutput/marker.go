package aopoutput

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

const specFormat = "aop-output-1.0.0 §AOP Format Specification"

var reportKinds = []string{KindReport}

// MarkerMissing: every required marker is present.
var MarkerMissing = ruleDocs.Rule(lint.Rule{
	ID: "AOPOUT-MARKER-001", Protocol: ID, Kinds: reportKinds, Severity: lint.Error,
	Spec: specFormat + "; §Validation Checklist",
	Run:  checkMissing,
})

// MarkerRepeated: every marker at most once.
var MarkerRepeated = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-MARKER-002", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Spec: specFormat, Run: checkRepeated})

// MarkerOrder: markers in the order of the format.
var MarkerOrder = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-MARKER-003", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Spec: specFormat, Run: checkOrder})

// MarkerUnknown: markers the spec does not define.
var MarkerUnknown = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-MARKER-004", Protocol: ID, Kinds: reportKinds, Severity: lint.Warning, Spec: specFormat, Run: checkUnknown})

func init() { lint.Register(MarkerMissing, MarkerRepeated, MarkerOrder, MarkerUnknown) }

var required = []string{"START", "TASK", "SUMMARY", "DETAILS_FILE", "STATUS", "END"}

func checkMissing(p *lint.Pass) {
	if p.Msg.CutOff {
		return // the harness stopped the agent before it could finish the report
	}
	r := parsed(p)
	missing := lacking(required, r.Has)
	if len(missing) == 0 {
		return
	}
	// where a missing marker belongs: at the first present marker that follows it
	// in the format's order, else at the end of the report
	where := func(name string) int {
		best := -1
		for _, m := range r.Markers {
			if k, ok := spec.Rank(m.Name); ok && k > rankAt(name) && (best < 0 || m.Off < best) {
				best = m.Off
			}
		}
		if best < 0 {
			best = 0
			if len(r.Markers) > 0 {
				best = r.Markers[len(r.Markers)-1].Off
			}
		}
		return best
	}
	for _, name := range missing {
		p.Claim(pointerOf[name])
	}
	if d := memoOf(p).dialectOf(); d == DialectThreeMarker || d == DialectFiles {
		names := make([]string, len(missing))
		for i, n := range missing {
			names[i] = "[AOP:" + n + "]"
		}
		reportAt(p, lint.Error, where(missing[0]), pointerOf[missing[0]], "%s missing: this report is in the %s; AOP 1.0.0 requires [AOP:START] {ISO timestamp}, [AOP:TASK], [AOP:SUMMARY], [AOP:DETAILS_FILE], [AOP:STATUS] and [AOP:END] {ISO timestamp}",
			plural(names), d)
		return
	}
	// a report cut short (a crash, a timeout): every missing marker belongs after the last one present
	if maxRank, last := lastPresent(r); len(missing) >= 2 && last != nil && rankAt(missing[0]) > maxRank && !r.Has("END") {
		names := make([]string, len(missing))
		for i, n := range missing {
			names[i] = "[AOP:" + n + "]"
		}
		reportAt(p, lint.Error, last.Off, pointerOf[missing[0]], "the report stops after [AOP:%s]: %s missing (an agent that crashed or was cut off); a complete report ends with [AOP:STATUS] and [AOP:END] {ISO timestamp}", last.Name, strings.TrimPrefix(plural(names), "markers "))
		return
	}
	for _, name := range missing {
		if i := bytes.Index(r.Text, []byte("[AOP:"+name+"]")); i >= 0 {
			reportAt(p, lint.Error, i, pointerOf[name], "marker [AOP:%s] is not at the start of a line: the format gives each marker a line of its own; move it to the start of the line", name)
			continue
		}
		reportAt(p, lint.Error, where(name), pointerOf[name], "marker [AOP:%s] is missing: %s", name, missingHint[name])
	}
}

var missingHint = map[string]string{
	"START":        "the report opens with [AOP:START] {ISO timestamp}, such as \"[AOP:START] 2026-02-05T10:30:00Z\"",
	"TASK":         "add [AOP:TASK] {the task in at most 50 characters} after [AOP:START]",
	"SUMMARY":      "add [AOP:SUMMARY] followed by 1-5 bullet points of key findings",
	"DETAILS_FILE": "add [AOP:DETAILS_FILE] {path to the full output file, or none}",
	"STATUS":       "add [AOP:STATUS] success, failure or partial",
	"END":          "the report closes with [AOP:END] {ISO timestamp}, such as \"[AOP:END] 2026-02-05T10:30:12Z\"",
}

func plural(names []string) string {
	if len(names) == 1 {
		return "marker " + names[0] + " is"
	}
	return "markers " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " are"
}

func checkRepeated(p *lint.Pass) {
	r := parsed(p)
	// the format's markers seen once and twice, by rank; others by name
	var once, twice uint
	var others map[string]int
	for _, m := range r.Markers {
		second := false
		if k, ok := spec.Rank(m.Name); ok {
			second = once&(1<<k) != 0 && twice&(1<<k) == 0
			twice |= once & (1 << k)
			once |= 1 << k
		} else {
			if others == nil {
				others = map[string]int{}
			}
			others[m.Name]++
			second = others[m.Name] == 2
		}
		if second {
			first := r.First(m.Name)
			reportAt(p, lint.Error, m.Off, pointerOf[m.Name], "marker [AOP:%s] appears again (first on line %d): parsers read only the first one, so this %s is lost; give each marker once",
				m.Name, lineOf(p, first.Off), valueName(m.Name))
		}
	}
}

func valueName(name string) string {
	switch name {
	case "SUMMARY":
		return "summary"
	case "DETAILS_FILE":
		return "details file"
	case "START", "END":
		return "timestamp"
	}
	return strings.ToLower(name)
}

func lineOf(p *lint.Pass, off int) int {
	l, _ := p.Msg.Pos.Position(off)
	return l
}

func checkOrder(p *lint.Pass) {
	r := parsed(p)
	// the first occurrence of each known marker, in text order
	var firsts [8]*marker // one of each of the format's markers at most
	ms := firsts[:0]
	var seen uint // by rank
	for i := range r.Markers {
		m := &r.Markers[i]
		if k, ok := spec.Rank(m.Name); ok && seen&(1<<k) == 0 {
			seen |= 1 << k
			ms = append(ms, m)
		}
	}
	if inOrder(ms) {
		return // the whole set is the one largest in order: nothing is misplaced
	}
	// keep the largest set of markers already in order; the others are misplaced
	// (on a tie, blame the markers that come later in the text)
	bestKeep, bestSize, bestScore := 0, -1, -1
	for set := 0; set < 1<<len(ms); set++ {
		size, score, last, ok := 0, 0, -1, true
		for i, m := range ms {
			if set&(1<<i) == 0 {
				score += i
				continue
			}
			if rankAt(m.Name) < last {
				ok = false
				break
			}
			last = rankAt(m.Name)
			size++
		}
		if ok && (size > bestSize || size == bestSize && score > bestScore) {
			bestKeep, bestSize, bestScore = set, size, score
		}
	}
	for i, m := range ms {
		if bestKeep&(1<<i) != 0 {
			continue
		}
		rel := ""
		for j := i - 1; j >= 0 && rel == ""; j-- {
			if bestKeep&(1<<j) != 0 && rankAt(ms[j].Name) > rankAt(m.Name) {
				rel = "comes after [AOP:" + ms[j].Name + "]"
			}
		}
		for j := i + 1; j < len(ms) && rel == ""; j++ {
			if bestKeep&(1<<j) != 0 && rankAt(ms[j].Name) < rankAt(m.Name) {
				rel = "comes before [AOP:" + ms[j].Name + "]"
			}
		}
		extra := ""
		if m.Name == "SUMMARY" && isLastKnown(r, m) {
			extra = "; as the last marker the summary is not even read, since the spec's parser takes the summary up to the next [AOP: marker"
		}
		reportAt(p, lint.Error, m.Off, pointerOf[m.Name], "[AOP:%s] %s: markers go in the order START, TASK, SUMMARY, DETAILS_FILE, METRICS, STATUS, END%s", m.Name, rel, extra)
	}
}

// inOrder reports whether the markers' ranks never go down.
func inOrder(ms []*marker) bool {
	last := -1
	for _, m := range ms {
		if rankAt(m.Name) < last {
			return false
		}
		last = rankAt(m.Name)
	}
	return true
}

func isLastKnown(r *report, m *marker) bool {
	for i := len(r.Markers) - 1; i >= 0; i-- {
		if _, ok := spec.Rank(r.Markers[i].Name); ok {
			return &r.Markers[i] == m
		}
	}
	return false
}

func checkUnknown(p *lint.Pass) {
	r := parsed(p)
	d := memoOf(p).dialectOf()
	for _, m := range r.Markers {
		if _, ok := spec.Rank(m.Name); ok {
			continue
		}
		why := ""
		switch {
		case (m.Name == "FILES" || m.Name == "ISSUES") && d == DialectFiles:
			why = fmt.Sprintf(" (it belongs to the %s)", DialectFiles)
		case strings.HasPrefix(m.Name, "DETAIL") || m.Name == "FILE" || m.Name == "OUTPUT":
			why = " (did you mean [AOP:DETAILS_FILE]?)"
		case m.Name == "STATE" || m.Name == "RESULT":
			why = " (did you mean [AOP:STATUS]?)"
		case m.Name == "BEGIN":
			why = " (did you mean [AOP:START]?)"
		}
		reportAt(p, lint.Warning, m.Off, "", "[AOP:%s] is not an AOP 1.0.0 marker%s: parsers ignore it; the markers are START, TASK, SUMMARY, DETAILS_FILE, METRICS, STATUS and END (lists of files and issues go in the details file)", m.Name, why)
	}
}

// lastPresent returns the highest rank among the known markers present, and the
// last known marker of the text.
func lastPresent(r *report) (int, *marker) {
	maxRank := -1
	var last *marker
	for i := range r.Markers {
		if k, ok := spec.Rank(r.Markers[i].Name); ok {
			if k > maxRank {
				maxRank = k
			}
			last = &r.Markers[i]
		}
	}
	return maxRank, last
}

// lacking lists the names that has says are absent, in their order.
func lacking(names []string, has func(string) bool) []string {
	var out []string
	for _, name := range names {
		if !has(name) {
			out = append(out, name)
		}
	}
	return out
}
