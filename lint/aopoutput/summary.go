package aopoutput

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

const specSummary = "aop-output-1.0.0 §AOP Format Specification; §Summary Length Limits by Task Type; §Validation Checklist"

// Summary limits (lint/spec/aopoutput): over SoftLimit a warning, over HardLimit
// an error ("under 600 chars" in the checklist, "Max 500 characters total" in the
// format).
const (
	SoftLimit = spec.SoftLimit
	HardLimit = spec.HardLimit
	MaxBullet = spec.MaxBullets
)

// TaskTypes are the rows of §Summary Length Limits by Task Type, by --task-type
// name (lint/spec/aopoutput).
var TaskTypes = spec.TaskTypes

// SummaryBullets: 1 to 5 bullet points.
var SummaryBullets = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-SUMMARY-001", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Spec: specSummary, Run: checkBullets})

// SummaryLength: the character limits.
var SummaryLength = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-SUMMARY-002", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Spec: specSummary, Run: checkLength})

// SummaryCode: no file contents or long code.
var SummaryCode = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-SUMMARY-003", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Run: checkCode})

// SummaryTrace: no stack traces.
var SummaryTrace = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-SUMMARY-004", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Run: checkTrace})

func init() { lint.Register(SummaryBullets, SummaryLength, SummaryCode, SummaryTrace) }

func checkBullets(p *lint.Pass) {
	r := parsed(p)
	m := r.First("SUMMARY")
	if m == nil {
		return
	}
	lines, _ := r.Summary()
	bullets := spec.Bullets(lines) // counted: the lines are listed only for a finding
	switch {
	case len(lines) == 0:
		reportAt(p, lint.Error, m.Off, "/summary", "[AOP:SUMMARY] is empty: give 1-%d bullet points of key findings (lines starting with \"- \")", MaxBullet)
		p.Claim("/summary")
	case bullets == 0:
		reportAt(p, lint.Error, lines[0].Off, "/bullets", "the summary is not in bullet points: write 1-%d lines starting with \"- \", one key finding each", MaxBullet)
	case bullets > MaxBullet:
		reportAt(p, lint.Error, bulletAt(lines, MaxBullet).Off, "/bullets", "the summary has %d bullet points, over the limit of %d: keep the key findings and move the rest to the details file", bullets, MaxBullet)
	default:
		return
	}
	p.Claim("/bullets")
}

// bulletAt returns the bullet line of index i (from 0) among lines, which has
// more than i.
func bulletAt(lines []summaryLine, i int) summaryLine {
	for _, l := range lines {
		if l.Bullet {
			if i == 0 {
				return l
			}
			i--
		}
	}
	return summaryLine{}
}

// limit returns the summary limits for the run's --task-type.
func limit(p *lint.Pass) (soft, hard int, row string, unknown string) {
	tt := ""
	if p.Msg.Opts != nil {
		tt = strings.ToLower(strings.TrimSpace(p.Msg.Opts.TaskType))
	}
	if tt == "" {
		return SoftLimit, HardLimit, "", ""
	}
	if t, ok := spec.LookupTaskType(tt); ok {
		return t.Limit, t.Limit, t.Name, ""
	}
	return SoftLimit, HardLimit, "", tt
}

func taskTypeNames() string { return strings.Join(spec.TaskTypeNames(), ", ") }

func checkLength(p *lint.Pass) {
	r := parsed(p)
	m := r.First("SUMMARY")
	if m == nil {
		return
	}
	soft, hard, row, unknown := limit(p)
	if unknown != "" {
		reportAt(p, lint.Warning, m.Off, "/summary", "unknown --task-type %q: the limits of the default apply (500 a warning, 600 an error); task types are %s", unknown, taskTypeNames())
	}
	_, text := r.Summary()
	if len(text) <= soft {
		return // no more runes than bytes: within soft (and hard, never below it), uncounted
	}
	n := utf8.RuneCountInString(text)
	switch {
	case row != "" && n > hard:
		reportAt(p, lint.Error, m.Off, "/summary", "the summary is %d characters, over the %d-character limit for %s tasks (--task-type): move detail to the details file", n, hard, row)
	case n > hard:
		reportAt(p, lint.Error, m.Off, "/summary", "the summary is %d characters, over the hard limit of %d (the spec's parser cuts it there) and the format's %d: move detail to the details file", n, hard, soft)
	case n > soft:
		reportAt(p, lint.Warning, m.Off, "/summary", "the summary is %d characters, over the format's limit of %d (at most %d is tolerated): shorten it", n, soft, hard)
	default:
		return
	}
	p.Claim("/summary")
}

var (
	codeLineRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:import\s|from\s+\S+\s+import\s|package\s|func\s|def\s|class\s|const\s|let\s|var\s|#include|public\s|private\s|protected\s|return\b|export\s|async\s+function|function\s|if\s*\(|for\s*\(|while\s*\(|\}|\{$|</?[a-zA-Z][^>]*>$)|[;{}]\s*$`)
	})
)

// isFence reports whether a line opens or closes a fenced code block (``` or
// ~~~ at its start).
func isFence(t string) bool { return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") }

// mayBeCode is false for a line codeLineRe cannot match: its forms start with
// one of these bytes, or end with ; { or } before blanks (\s). Most lines are
// neither, and skip the regexp.
func mayBeCode(t string) bool {
	if t == "" {
		return false
	}
	if strings.IndexByte("ifpdclv#reaw}{<", t[0]) >= 0 {
		return true
	}
	e := len(t)
	for e > 0 && (t[e-1] == ' ' || t[e-1] == '\t' || t[e-1] == '\n' || t[e-1] == '\f' || t[e-1] == '\r') {
		e--
	}
	return e > 0 && (t[e-1] == ';' || t[e-1] == '{' || t[e-1] == '}')
}

func checkCode(p *lint.Pass) {
	lines, _ := parsed(p).Summary()
	for _, f := range findCode(lines) {
		reportAt(p, lint.Error, f.Off, "/summary", "%s in the summary: code snippets over 5 lines and file contents go in the details file", f.what)
	}
}

// finding is a place in the report and what was found there.
type finding struct {
	Off  int
	what string
}

// findCode finds fenced code blocks of more than 5 lines, and runs of more than 5
// consecutive lines that look like code (file contents), in lines.
func findCode(lines []summaryLine) []finding {
	var out []finding
	fenceStart, inFence, n := -1, false, 0
	run, runStart := 0, -1
	flush := func() {
		if run > 5 {
			out = append(out, finding{runStart, fmt.Sprintf("%d consecutive lines of code (file contents?)", run)})
		}
		run, runStart = 0, -1
	}
	for _, l := range lines {
		if isFence(l.Text) {
			if inFence {
				if n > 5 {
					out = append(out, finding{fenceStart, fmt.Sprintf("a code block of %d lines", n)})
				}
				inFence, n = false, 0
			} else {
				flush()
				inFence, fenceStart, n = true, l.Off, 0
			}
			continue
		}
		if inFence {
			n++
			continue
		}
		if !l.Bullet && mayBeCode(l.Text) && codeLineRe().MatchString(l.Text) {
			if run == 0 {
				runStart = l.Off
			}
			run++
			continue
		}
		flush()
	}
	if inFence && n > 5 {
		out = append(out, finding{fenceStart, fmt.Sprintf("an unclosed code block of %d lines", n)})
	}
	flush()
	return out
}

var (
	frameRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:at\s+\S.*(?:\(.+:\d+(?::\d+)?\)|:\d+:\d+)$|File ".+", line \d+|\S+\.go:\d+(?:\s+\+0x[0-9a-f]+)?$|at\s+[\w$.<>]+\([\w]+\.(?:java|kt|scala):\d+\)$)`)
	})
	traceHeaderRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:Traceback \(most recent call last\):|goroutine \d+ \[[a-z ]+\]:|Exception in thread "|panic: )`)
	})
)

// mayBeTraceHeader is false for a line traceHeaderRe cannot match (it
// matches from the start of one of these), and mayBeFrame for one frameRe
// cannot match (its four forms start with "at" or `File "`, or hold ".go:"):
// most lines of a summary are neither, and skip the regexps.
func mayBeTraceHeader(t string) bool {
	return strings.HasPrefix(t, "Traceback (") || strings.HasPrefix(t, "goroutine ") ||
		strings.HasPrefix(t, `Exception in thread "`) || strings.HasPrefix(t, "panic: ")
}

func mayBeFrame(t string) bool {
	return strings.HasPrefix(t, "at") || strings.HasPrefix(t, `File "`) || strings.Contains(t, ".go:")
}

func checkTrace(p *lint.Pass) {
	lines, _ := parsed(p).Summary()
	if f, ok := findTrace(lines); ok {
		reportAt(p, lint.Error, f.Off, "/summary", "a stack trace in the summary (%s): name the error in one line and put the trace in the details file", f.what)
	}
}

// findTrace finds a stack trace: a trace header, or two or more stack frames.
func findTrace(lines []summaryLine) (finding, bool) {
	frames, first := 0, -1
	for _, l := range lines {
		t := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(l.Text, "- "), "* "), " \t")
		if mayBeTraceHeader(t) && traceHeaderRe().MatchString(t) {
			return finding{l.Off, quote(t)}, true
		}
		if mayBeFrame(t) && frameRe().MatchString(t) {
			if first < 0 {
				first = l.Off
			}
			frames++
		}
	}
	if frames >= 2 {
		return finding{first, fmt.Sprintf("%d frames", frames)}, true
	}
	return finding{}, false
}
