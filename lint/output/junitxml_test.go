package output

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"math/rand"
	"strings"
	"testing"
)

// The JUnit document as encoding/xml writes it (what junit.go wrote before it
// wrote the document by hand), for the differential test.
type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

type xmlSuite struct {
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Errors   int       `xml:"errors,attr"`
	Skipped  int       `xml:"skipped,attr"`
	Time     string    `xml:"time,attr"`
	Cases    []xmlCase `xml:"testcase"`
}

type xmlCase struct {
	Name      string      `xml:"name,attr"`
	Classname string      `xml:"classname,attr"`
	Time      string      `xml:"time,attr"`
	Failure   *xmlFailure `xml:"failure,omitempty"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type xmlFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func viaEncodingXML(t testing.TB, d *junitSuites) string {
	x := xmlSuites{Name: d.Name, Tests: d.Tests, Failures: d.Failures, Errors: d.Errors, Time: d.Time}
	for _, s := range d.Suites {
		xs := xmlSuite{Name: s.Name, Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Skipped: s.Skipped, Time: s.Time}
		for _, c := range s.Cases {
			xc := xmlCase{Name: c.Name, Classname: c.Classname, Time: c.Time, SystemOut: c.SystemOut}
			if c.Failure != nil {
				xc.Failure = &xmlFailure{Message: c.Failure.Message, Type: c.Failure.Type, Text: c.Failure.Text}
			}
			xs.Cases = append(xs.Cases, xc)
		}
		x.Suites = append(x.Suites, xs)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(x); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	return b.String()
}

func byHand(d *junitSuites) string {
	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	bw.WriteString(xmlHeader)
	d.write(bw)
	bw.WriteString("\n")
	bw.Flush()
	return b.String()
}

func agreeXML(t *testing.T, d *junitSuites) {
	t.Helper()
	if got, want := byHand(d), viaEncodingXML(t, d); got != want {
		t.Fatalf("by hand:\n%s\nencoding/xml:\n%s", got, want)
	}
}

// xmlText is a string with what XML escaping must handle: markup characters,
// whitespace, invalid UTF-8, characters XML cannot hold, U+FFFD as written.
func xmlText(r *rand.Rand) string {
	pieces := []string{"", "a", "ü", "<", ">", "&", `"`, "'", "\t", "\n", "\r", "\x00", "\x1f", "\x7f", "\xff", "\xc3", "\uFFFD", "\uFFFE",
		"\U0001F600", "\u2028", "]]>", "&amp;", "path/to/file.json:1:2: error: x [AOP2-X-001] (§5)", " "}
	var b strings.Builder
	for n := r.Intn(8); n > 0; n-- {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

func randomSuites(r *rand.Rand) *junitSuites {
	d := &junitSuites{Name: xmlText(r), Tests: r.Intn(1000) - 1, Failures: r.Intn(3), Time: xmlText(r)}
	for i := r.Intn(3); i > 0; i-- {
		s := junitSuite{Name: xmlText(r), Tests: r.Intn(5), Failures: r.Intn(5), Errors: r.Intn(2), Skipped: r.Intn(2), Time: xmlText(r)}
		for j := r.Intn(4); j > 0; j-- {
			c := junitCase{Name: xmlText(r), Classname: xmlText(r), Time: xmlText(r)}
			if r.Intn(2) == 0 {
				c.Failure = &junitFailure{Message: xmlText(r), Type: xmlText(r), Text: xmlText(r)}
			}
			if r.Intn(2) == 0 {
				c.SystemOut = xmlText(r)
			}
			s.Cases = append(s.Cases, c)
		}
		d.Suites = append(d.Suites, s)
	}
	return d
}

// The JUnit document written by hand is byte for byte encoding/xml's.
func TestJUnitAsEncodingXML(t *testing.T) {
	agreeXML(t, &junitSuites{})
	agreeXML(t, &junitSuites{Suites: []junitSuite{{}}})
	agreeXML(t, &junitSuites{Suites: []junitSuite{{Cases: []junitCase{{}, {Failure: &junitFailure{}}, {SystemOut: "x"}}}}})
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		agreeXML(t, randomSuites(r))
	}
}

func FuzzJUnitAsEncodingXML(f *testing.F) {
	f.Add("a", "<&>\"'", "\t\n\r", "\xff\x00")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		agreeXML(t, &junitSuites{Name: a, Time: b, Suites: []junitSuite{{Name: c, Cases: []junitCase{
			{Name: a, Classname: b, Time: c, Failure: &junitFailure{Message: d, Type: a, Text: b}, SystemOut: c},
			{Name: d, SystemOut: a}, {Name: b},
		}}}})
	})
}
