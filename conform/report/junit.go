package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

// junitSuites is the root element. The common (Jenkins) JUnit XSD allows name, time,
// tests, failures, disabled and errors here, and no skipped: skipped is counted on
// each testsuite.
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
	Props    *junitProps `xml:"properties,omitempty"` // provenance: junit_provenance.go
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitText    `xml:"skipped,omitempty"` // the JUnit XSD allows it no attribute
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitText struct {
	Body string `xml:",chardata"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// JUnit writes one testsuite per scenario and one testcase per check. FAIL is a
// failure; NOT-TESTED of a MUST is a failure too (it never counts as a pass), of a
// SHOULD or MAY it is skipped; a scenario the harness could not run, and a check
// it could not judge (HARNESS-ERROR), is an error. NOT-APPLICABLE, NOT-JUDGED (its
// root cause is the failure), FLAKY and KNOWN are skipped, with their reason, pass
// rate and margin in the message. Every testsuite's properties carry the run's
// level and "MUSTs exercised N of M".
func JUnit(w io.Writer, r *conform.Report) error {
	doc := junitSuites{Name: "aopconform " + r.Protocol}
	var totalMS int64
	byScenario := map[string][]conform.Result{}
	for _, res := range r.Results {
		byScenario[res.Scenario] = append(byScenario[res.Scenario], res)
	}
	for _, s := range r.Scenarios {
		suite := junitSuite{Name: r.Protocol + "/" + s.ID, Time: fmt.Sprintf("%.3f", float64(s.DurationMS)/1000)}
		suite.Props = scoreProperties(r, provenanceProperties(r, s.ID))
		for _, res := range byScenario[s.ID] {
			c := junitCase{Name: res.Check, Classname: r.Protocol + "." + s.ID}
			body := details(res)
			msg := res.Message
			if fs := Facts(res); len(fs) > 0 {
				msg += " (" + strings.Join(fs, "; ") + ")"
			}
			switch {
			case s.HarnessError != "":
				c.Error = &junitMessage{Message: "harness error: " + s.HarnessError, Type: "HARNESS-ERROR"}
				suite.Errors++
			case res.Verdict == conform.HarnessError:
				c.Error = &junitMessage{Message: "the harness could not judge this check: " + msg, Type: string(res.Verdict), Body: body}
				suite.Errors++
			case res.Verdict == conform.Fail || (res.Verdict == conform.NotTested && res.Level == conform.MUST):
				c.Failure = &junitMessage{Message: msg, Type: string(res.Verdict), Body: body}
				suite.Failures++
			case res.Verdict == conform.Skip, res.Verdict == conform.NotTested, res.Verdict == conform.NotApplicable,
				res.Verdict == conform.NotJudged, res.Verdict == conform.Flaky, res.Verdict == conform.Known:
				c.Skipped = &junitText{Body: string(res.Verdict) + ": " + strings.TrimPrefix(msg, string(res.Verdict)+": ")}
				suite.Skipped++
			case res.Verdict == conform.Warn:
				c.SystemOut = "WARN: " + body
			case res.Runs > 1:
				c.SystemOut = string(res.Verdict) + ": " + strings.Join(Facts(res), "; ")
			}
			suite.Tests++
			suite.Cases = append(suite.Cases, c)
		}
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		totalMS += int64(s.DurationMS)
		doc.Suites = append(doc.Suites, suite)
	}
	doc.Time = fmt.Sprintf("%.3f", float64(totalMS)/1000)
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

// scoreProperties adds the run's level and exercised MUSTs to a testsuite's
// properties.
func scoreProperties(r *conform.Report, props *junitProps) *junitProps {
	if props == nil {
		props = &junitProps{}
	}
	judged, total := Exercised(r)
	props.Items = append(props.Items,
		junitProperty{"aopconform.level", LevelName(r.Score)},
		junitProperty{"aopconform.musts_exercised", fmt.Sprintf("%d of %d", judged, total)})
	return props
}

func details(res conform.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s %s] %s\n", res.Check, res.Level, res.Tier, res.Spec)
	fmt.Fprintf(&b, "requirement: %s\n", res.Requirement)
	if res.Message != "" {
		fmt.Fprintf(&b, "%s\n", res.Message)
	}
	if fs := Facts(res); len(fs) > 0 {
		fmt.Fprintf(&b, "%s\n", strings.Join(fs, "; "))
	}
	if res.Expected != "" || res.Actual != "" {
		fmt.Fprintf(&b, "expected: %s\nactual: %s\n", res.Expected, res.Actual)
	}
	for _, l := range res.Lint {
		fmt.Fprintf(&b, "lint %s %s (record %d): %s\n", l.Severity, l.Rule, l.Seq, l.Message)
	}
	if res.Rerun != "" {
		fmt.Fprintf(&b, "rerun: %s\n", res.Rerun)
	}
	return b.String()
}
