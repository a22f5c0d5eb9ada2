// Package aopoutput is the parent-orchestrator side of the Agent Output Protocol
// 1.0.0 (specs/aop-output-1.0.0.md): it parses the agent's stdout report (the
// [AOP:START] … [AOP:END] markers), loads the details file from inside the scratch
// directory only, checks both, and returns a Result.
package aopoutput

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Markers in the order §AOP Format Specification lists them; METRICS is optional.
var Markers = []string{"START", "TASK", "SUMMARY", "DETAILS_FILE", "METRICS", "STATUS", "END"}

var required = map[string]bool{"START": true, "TASK": true, "SUMMARY": true, "DETAILS_FILE": true, "STATUS": true, "END": true}

// Limits of the spec.
const (
	MaxTask      = 50    // [AOP:TASK] max 50 chars
	MaxBullets   = 5     // 1-5 bullet points
	MaxOutput    = 10000 // "10,000+ chars dumped into context" is the problem AOP solves
	DefaultLimit = 500   // "Max 500 characters total"
)

// SummaryLimit is the summary limit for a task type (§Summary Length Limits by Task
// Type); DefaultLimit for a type the table does not name.
func SummaryLimit(taskType string) int {
	switch strings.ToLower(taskType) {
	case "search", "explore", "search/explore":
		return 500
	case "analysis":
		return 600
	case "code", "code-changes", "code_changes", "code changes":
		return 300
	case "test", "tests", "test-results", "test results":
		return 400
	case "build", "build-output", "build output":
		return 200
	case "documentation", "docs":
		return 500
	}
	return DefaultLimit
}

// Marker is one marker line.
type Marker struct {
	Name  string
	Line  int // 1-based line in the output
	Value string
}

// Report is the parsed stdout.
type Report struct {
	Markers []Marker
	Values  map[string]string // first value of each marker
	Summary string            // the lines between [AOP:SUMMARY] and the next marker, trimmed
	Bullets []string
	Stray   []int // lines with text outside [AOP:START] … [AOP:END]
	Size    int   // characters of the whole output
}

// Has reports whether the marker appears.
func (r *Report) Has(name string) bool { _, ok := r.Values[name]; return ok }

// Parse reads the agent's stdout. It never fails: what is missing shows in the
// report and in Check's findings.
func Parse(out []byte) *Report {
	r := &Report{Values: map[string]string{}, Size: utf8.RuneCount(out)}
	lines := strings.Split(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n")
	inBlock, inSummary, ended := false, false, false
	var summary []string
	for i, line := range lines {
		n := i + 1
		t := strings.TrimSpace(line)
		if name, value, ok := marker(t); ok {
			r.Markers = append(r.Markers, Marker{Name: name, Line: n, Value: value})
			if _, seen := r.Values[name]; !seen {
				r.Values[name] = value
			}
			inSummary = name == "SUMMARY"
			if inSummary && value != "" {
				summary = append(summary, value)
			}
			switch name {
			case "START":
				inBlock = true
			case "END":
				inBlock, ended = false, true
			}
			if name != "START" && name != "END" && !inBlock && !ended {
				inBlock = true // a report without START still has a block
			}
			continue
		}
		if inSummary {
			summary = append(summary, line)
		}
		if t != "" && !inBlock {
			r.Stray = append(r.Stray, n)
		}
	}
	r.Summary = strings.TrimSpace(strings.Join(summary, "\n"))
	for _, l := range strings.Split(r.Summary, "\n") {
		l = strings.TrimSpace(l)
		for _, b := range []string{"- ", "* ", "• "} {
			if strings.HasPrefix(l, b) {
				r.Bullets = append(r.Bullets, strings.TrimSpace(l[len(b):]))
				break
			}
		}
	}
	return r
}

// marker recognises "[AOP:NAME] value".
func marker(line string) (name, value string, ok bool) {
	rest, found := strings.CutPrefix(line, "[AOP:")
	if !found {
		return "", "", false
	}
	name, value, found = strings.Cut(rest, "]")
	if !found || name == "" || strings.ContainsAny(name, " \t[") {
		return "", "", false
	}
	return name, strings.TrimSpace(value), true
}

// Finding is one problem of a report.
type Finding struct {
	Rule     string // AOPOUT-...
	Severity string // error, warning
	Line     int
	Message  string
}

// Result is what the parent orchestrator takes from one agent run.
type Result struct {
	Report      *Report
	Status      string         // success | failure | partial, or "" when unusable
	DetailsPath string         // absolute path of the details file, "" for none
	Details     map[string]any // the details file, when it was loaded
	Findings    []Finding
}

// OK reports whether the report has no errors.
func (r *Result) OK() bool {
	for _, f := range r.Findings {
		if f.Severity == "error" {
			return false
		}
	}
	return true
}

// Rules returns the distinct rule IDs of the findings, in order of first appearance.
func (r *Result) Rules() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range r.Findings {
		if !seen[f.Rule] {
			seen[f.Rule] = true
			out = append(out, f.Rule)
		}
	}
	return out
}

// Check parses out, loads the details file from scratch and checks everything the
// spec's Validation Checklist asks for.
func Check(out []byte, scratch, taskType string) *Result {
	rep := Parse(out)
	res := &Result{Report: rep}
	add := func(rule, sev string, line int, format string, a ...any) {
		res.Findings = append(res.Findings, Finding{Rule: rule, Severity: sev, Line: line, Message: fmt.Sprintf(format, a...)})
	}
	lineOf := func(name string) int {
		for _, m := range rep.Markers {
			if m.Name == name {
				return m.Line
			}
		}
		return 0
	}
	if len(rep.Markers) == 0 {
		add("AOPOUT-MARKER-MISSING", "error", 0, "no [AOP:...] markers at all: the output is not an AOP report (an AOP report runs from [AOP:START] to [AOP:END])")
		for _, f := range sizeFindings(rep) {
			if f.Rule != "AOPOUT-STRAY-OUTPUT" { // all of it is stray: one finding is enough
				res.Findings = append(res.Findings, f)
			}
		}
		return res
	}
	// Markers: present, once, in order.
	count := map[string]int{}
	for _, m := range rep.Markers {
		count[m.Name]++
		known := false
		for _, k := range Markers {
			known = known || k == m.Name
		}
		if !known {
			msg := fmt.Sprintf("unknown marker [AOP:%s]; AOP 1.0.0 markers are %s", m.Name, strings.Join(Markers, ", "))
			if m.Name == "FILES" {
				msg += " ([AOP:FILES] belongs to another AOP dialect)"
			}
			add("AOPOUT-MARKER-UNKNOWN", "warning", m.Line, "%s", msg)
		}
	}
	for _, name := range Markers {
		if required[name] && count[name] == 0 {
			add("AOPOUT-MARKER-MISSING", "error", 0, "[AOP:%s] is missing", name)
		}
		if count[name] > 1 {
			add("AOPOUT-MARKER-DUP", "error", lineOf(name), "[AOP:%s] appears %d times; one report has each marker once", name, count[name])
		}
	}
	last, lastName := -1, ""
	for _, m := range rep.Markers {
		idx := -1
		for i, k := range Markers {
			if k == m.Name {
				idx = i
			}
		}
		if idx < 0 {
			continue
		}
		if idx < last {
			add("AOPOUT-MARKER-ORDER", "error", m.Line, "[AOP:%s] comes after [AOP:%s]; the order is %s", m.Name, lastName, strings.Join(Markers, ", "))
			break
		}
		last, lastName = idx, m.Name
	}
	// Timestamps.
	var start, end time.Time
	for _, name := range []string{"START", "END"} {
		if !rep.Has(name) {
			continue
		}
		ts, err := time.Parse(time.RFC3339Nano, rep.Values[name])
		if err != nil {
			add("AOPOUT-TIMESTAMP", "error", lineOf(name), "[AOP:%s] %q is not an ISO timestamp such as 2026-02-05T10:30:00Z", name, rep.Values[name])
			continue
		}
		if name == "START" {
			start = ts
		} else {
			end = ts
		}
	}
	if !start.IsZero() && !end.IsZero() && end.Before(start) {
		add("AOPOUT-TIMESTAMP", "error", lineOf("END"), "[AOP:END] %s is before [AOP:START] %s", rep.Values["END"], rep.Values["START"])
	}
	// Task.
	if rep.Has("TASK") {
		task := rep.Values["TASK"]
		switch n := utf8.RuneCountInString(task); {
		case n == 0:
			add("AOPOUT-TASK-LENGTH", "error", lineOf("TASK"), "[AOP:TASK] is empty; give a brief task description (max %d chars)", MaxTask)
		case n > MaxTask:
			add("AOPOUT-TASK-LENGTH", "error", lineOf("TASK"), "[AOP:TASK] is %d characters, at most %d allowed", n, MaxTask)
		}
	}
	// Summary.
	if rep.Has("SUMMARY") {
		limit := SummaryLimit(taskType)
		n := utf8.RuneCountInString(rep.Summary)
		if n > limit {
			add("AOPOUT-SUMMARY-LENGTH", "error", lineOf("SUMMARY"), "[AOP:SUMMARY] is %d characters; a %s summary may have at most %d", n, orGeneric(taskType), limit)
		}
		switch b := len(rep.Bullets); {
		case n == 0:
			add("AOPOUT-SUMMARY-EMPTY", "error", lineOf("SUMMARY"), "[AOP:SUMMARY] is empty; give 1-5 bullet points of key findings")
		case b == 0:
			add("AOPOUT-SUMMARY-BULLETS", "warning", lineOf("SUMMARY"), "[AOP:SUMMARY] has no bullet points; write 1-5 lines starting with \"- \"")
		case b > MaxBullets:
			add("AOPOUT-SUMMARY-BULLETS", "warning", lineOf("SUMMARY"), "[AOP:SUMMARY] has %d bullet points, at most %d", b, MaxBullets)
		}
	}
	// Status.
	if rep.Has("STATUS") {
		st := rep.Values["STATUS"]
		switch st {
		case "success", "failure", "partial":
			res.Status = st
		default:
			msg := fmt.Sprintf("[AOP:STATUS] %q must be success, failure or partial", st)
			switch strings.ToLower(st) {
			case "success", "failure", "partial":
				msg += fmt.Sprintf(" (lowercase: %q)", strings.ToLower(st))
			case "blocked", "failed":
				msg += " (SUCCESS|PARTIAL|BLOCKED|FAILED is another AOP dialect)"
			}
			add("AOPOUT-STATUS", "error", lineOf("STATUS"), "%s", msg)
		}
	}
	// Metrics: "key: value" pairs separated by commas.
	if rep.Has("METRICS") {
		for _, pair := range strings.Split(rep.Values["METRICS"], ",") {
			k, v, ok := strings.Cut(pair, ":")
			if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
				add("AOPOUT-METRICS", "warning", lineOf("METRICS"), "[AOP:METRICS] %q is not a list of key: value pairs", rep.Values["METRICS"])
				break
			}
		}
	}
	// Details file.
	if rep.Has("DETAILS_FILE") {
		p := rep.Values["DETAILS_FILE"]
		if p != "none" {
			abs, details, rule, err := LoadDetails(scratch, p)
			if err != nil {
				add(rule, "error", lineOf("DETAILS_FILE"), "%v", err)
			} else {
				res.DetailsPath, res.Details = abs, details
				if _, ok := details["aop_version"]; !ok {
					add("AOPOUT-DETAILS-FIELDS", "warning", lineOf("DETAILS_FILE"), "details file has no aop_version (the details file format lists aop_version, agent_id, task, timestamp, duration_ms, results, metadata)")
				}
			}
		}
	}
	res.Findings = append(res.Findings, sizeFindings(rep)...)
	if !res.OK() {
		res.Status = ""
	}
	return res
}

func sizeFindings(rep *Report) []Finding {
	var out []Finding
	if rep.Size > MaxOutput {
		out = append(out, Finding{Rule: "AOPOUT-OUTPUT-SIZE", Severity: "error", Message: fmt.Sprintf("the output is %d characters; AOP returns a summary and writes full results to the details file (over %d characters floods the parent's context)", rep.Size, MaxOutput)})
	}
	if len(rep.Stray) > 0 {
		out = append(out, Finding{Rule: "AOPOUT-STRAY-OUTPUT", Severity: "warning", Line: rep.Stray[0], Message: fmt.Sprintf("%d line(s) of output outside [AOP:START] … [AOP:END]; the parent receives the summary only", len(rep.Stray))})
	}
	return out
}

func orGeneric(t string) string {
	if t == "" {
		return "generic"
	}
	return t
}

// LoadDetails resolves path (relative to scratch, or absolute inside it), refuses
// anything that escapes scratch (.., absolute paths elsewhere, symlinks out), and
// reads the file as a JSON object. rule names the failed check.
func LoadDetails(scratch, path string) (abs string, details map[string]any, rule string, err error) {
	root, err := filepath.Abs(scratch)
	if err != nil {
		return "", nil, "AOPOUT-DETAILS-ESCAPE", err
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	p := path
	if !filepath.IsAbs(p) {
		if !filepath.IsLocal(p) {
			return "", nil, "AOPOUT-DETAILS-ESCAPE", fmt.Errorf("[AOP:DETAILS_FILE] %q leaves the scratch directory; give a path inside it", path)
		}
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if !within(root, p) {
		// An absolute path through a symlinked scratch directory still counts.
		if rp, err := filepath.EvalSymlinks(p); err != nil || !within(root, rp) {
			return "", nil, "AOPOUT-DETAILS-ESCAPE", fmt.Errorf("[AOP:DETAILS_FILE] %q is outside the scratch directory", path)
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", nil, "AOPOUT-DETAILS-MISSING", fmt.Errorf("[AOP:DETAILS_FILE] %q does not exist; write the details file before reporting", path)
	}
	if !within(root, real) {
		return "", nil, "AOPOUT-DETAILS-ESCAPE", fmt.Errorf("[AOP:DETAILS_FILE] %q is a link leading outside the scratch directory", path)
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil, "AOPOUT-DETAILS-MISSING", fmt.Errorf("[AOP:DETAILS_FILE] %q is not a regular file", path)
	}
	if fi.Size() > 64<<20 {
		return "", nil, "AOPOUT-DETAILS-JSON", fmt.Errorf("[AOP:DETAILS_FILE] %q is larger than 64 MiB", path)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return "", nil, "AOPOUT-DETAILS-MISSING", err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&details); err != nil || details == nil {
		return "", nil, "AOPOUT-DETAILS-JSON", fmt.Errorf("details file %q is not a JSON object: %v", path, err)
	}
	return real, details, "", nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && filepath.IsLocal(rel)
}
