package output

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
)

// The JUnit document, written by hand rather than with encoding/xml: linking
// encoding/xml costs every aoplint run its package initialisation (a map of 252 HTML
// entities), and these few elements need none of it. A test holds the output to
// encoding/xml's (xml.Encoder with Indent("", "  ")) byte for byte.
type junitSuites struct {
	Name     string
	Tests    int
	Failures int
	Errors   int
	Time     string
	Suites   []junitSuite
}

type junitSuite struct {
	Name     string
	Tests    int
	Failures int
	Errors   int
	Skipped  int
	Time     string
	Cases    []junitCase
}

type junitCase struct {
	Name      string
	Classname string
	Time      string
	Failure   *junitFailure // omitted when nil
	SystemOut string        // omitted when empty
}

type junitFailure struct {
	Message string
	Type    string
	Text    string
}

// xmlHeader is encoding/xml's Header.
const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// write writes the document as encoding/xml's indented encoder would.
func (d *junitSuites) write(w *bufio.Writer) {
	itoa := strconv.Itoa
	xmlStart(w, "", "testsuites", "name", d.Name, "tests", itoa(d.Tests), "failures", itoa(d.Failures), "errors", itoa(d.Errors), "time", d.Time)
	for i := range d.Suites {
		s := &d.Suites[i]
		xmlStart(w, "\n  ", "testsuite", "name", s.Name, "tests", itoa(s.Tests), "failures", itoa(s.Failures), "errors", itoa(s.Errors),
			"skipped", itoa(s.Skipped), "time", s.Time)
		for j := range s.Cases {
			c := &s.Cases[j]
			xmlStart(w, "\n    ", "testcase", "name", c.Name, "classname", c.Classname, "time", c.Time)
			if f := c.Failure; f != nil {
				xmlStart(w, "\n      ", "failure", "message", f.Message, "type", f.Type)
				xmlEscape(w, f.Text)
				w.WriteString("</failure>")
			}
			if c.SystemOut != "" {
				xmlStart(w, "\n      ", "system-out")
				xmlEscape(w, c.SystemOut)
				w.WriteString("</system-out>")
			}
			xmlEnd(w, "\n    ", "testcase", c.Failure != nil || c.SystemOut != "")
		}
		xmlEnd(w, "\n  ", "testsuite", len(s.Cases) > 0)
	}
	xmlEnd(w, "\n", "testsuites", len(d.Suites) > 0)
}

// xmlStart writes a start tag on a new line at indent, with attributes given as
// name, value pairs.
func xmlStart(w *bufio.Writer, indent, tag string, attrs ...string) {
	w.WriteString(indent)
	w.WriteString("<")
	w.WriteString(tag)
	for i := 0; i+1 < len(attrs); i += 2 {
		w.WriteString(" ")
		w.WriteString(attrs[i])
		w.WriteString(`="`)
		xmlEscape(w, attrs[i+1])
		w.WriteString(`"`)
	}
	w.WriteString(">")
}

// xmlEnd writes an end tag: on a new line at indent after child elements, right
// after the start tag of an element without any (as encoding/xml does).
func xmlEnd(w *bufio.Writer, indent, tag string, children bool) {
	if children {
		w.WriteString(indent)
	}
	w.WriteString("</")
	w.WriteString(tag)
	w.WriteString(">")
}

// xmlEscape writes s escaped as encoding/xml escapes attribute values and
// character data: the five markup characters, tab, newline and carriage return as
// character references, and what XML cannot hold (invalid UTF-8, characters
// outside its ranges) as U+FFFD.
func xmlEscape(w *bufio.Writer, s string) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		w.WriteString(s[last : i-width])
		w.WriteString(esc)
		last = i
	}
	w.WriteString(s[last:])
}

// xmlChar reports whether XML 1.0 allows r in a document (its Char production).
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// JUnit prints one testcase per file: it fails when the file has an error (or, with
// FailOnWarning, a warning); the failure lists every diagnostic of the file. Each
// testcase's time is the file's lint time, the suite's their sum; the document is
// valid against the common (Jenkins) JUnit XSD.
func JUnit(w io.Writer, r *Report) error {
	return junit(w, r, lint.Error)
}

// JUnitFailOn is JUnit with the threshold of --fail-on.
func JUnitFailOn(w io.Writer, r *Report, threshold lint.Severity) error {
	return junit(w, r, threshold)
}

func junit(w io.Writer, r *Report, threshold lint.Severity) error {
	suite := junitSuite{Name: "aoplint"}
	var total time.Duration
	for i := range r.Files {
		f := &r.Files[i]
		total += f.Elapsed
		c := junitCase{Name: f.Path, Classname: "aoplint." + classname(f.Protocol), Time: seconds(f.Elapsed)}
		var lines []string
		failing := 0
		for j := range f.Diagnostics {
			d := &f.Diagnostics[j]
			lines = append(lines, fmt.Sprintf("%s:%d:%d: %s: %s [%s] (%s)", pathOf(f, d), d.Line, d.Column, d.Severity, d.Message, d.Rule, d.Spec))
			if d.Severity >= threshold {
				failing++
			}
		}
		if failing > 0 {
			c.Failure = &junitFailure{Message: fmt.Sprintf("%d finding(s) at or above %s", failing, threshold), Type: "lint", Text: strings.Join(lines, "\n")}
			suite.Failures++
		} else if len(lines) > 0 {
			c.SystemOut = strings.Join(lines, "\n")
		}
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
	}
	suite.Time = seconds(total)
	doc := junitSuites{Name: "aoplint", Tests: suite.Tests, Failures: suite.Failures, Time: suite.Time, Suites: []junitSuite{suite}}
	bw := bufio.NewWriter(w)
	bw.WriteString(xmlHeader)
	doc.write(bw)
	bw.WriteString("\n")
	return bw.Flush()
}

// seconds is a JUnit time attribute: seconds with millisecond precision.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func classname(p string) string {
	if p == "" {
		return "unknown"
	}
	return p
}
