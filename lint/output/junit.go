package output

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
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
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// seconds is a JUnit time attribute: seconds with millisecond precision.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func classname(p string) string {
	if p == "" {
		return "unknown"
	}
	return p
}
