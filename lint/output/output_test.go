package output

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xeipuuv/gojsonschema"

	"github.com/aopkit/aopkit/internal/stdschemas"
	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/linter"
)

// sampleReport lints inputs whose names are hard for every format: spaces, a colon,
// a hash, a percent sign, standard input, an absolute path, a path above the working
// directory, a newline and an escape sequence; plus a stream with related locations.
func sampleReport(t *testing.T) *Report {
	t.Helper()
	dup := []byte(`{"a": 1, "b": 2, "a": 3}`)
	stream, err := os.ReadFile("../../fixtures/orchmsg/valid/logs_broken_json_and_untyped.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	stream = append(stream, stream...) // ids used twice: sequence diagnostics with related lines
	var files []linter.FileResult
	for _, name := range []string{"dir with space/a:b#c%.json", "<stdin>", "/abs/x.json", "../up.json", "evil\nname\x1b[31m.json", "ünï.json"} {
		r := linter.LintBytes(name, dup, linter.Options{})
		r.Elapsed = 1500 * time.Microsecond
		files = append(files, r)
	}
	files = append(files, linter.LintBytes("stream.jsonl", stream, linter.Options{}))
	rep := &Report{Files: files, Version: "v0.0.0-test"}
	rep.Sort()
	return rep
}

func TestArtifactLocations(t *testing.T) {
	for _, tc := range []struct{ path, uri, base string }{
		{"a.json", "a.json", SrcRoot},
		{"./dir/../a.json", "a.json", SrcRoot},
		{"dir with space/a:b#c%.json", "dir%20with%20space/a%3Ab%23c%25.json", SrcRoot},
		{"ünï.json", "%C3%BCn%C3%AF.json", SrcRoot},
		{"<stdin>", StdinURI, ""},
		{"/abs/x y.json", "file:///abs/x%20y.json", ""},
	} {
		a := artifactOf(tc.path)
		if a.URI != tc.uri || a.URIBaseID != tc.base {
			t.Errorf("%q: uri %q base %q, want %q %q", tc.path, a.URI, a.URIBaseID, tc.uri, tc.base)
		}
		if _, err := url.Parse(a.URI); err != nil {
			t.Errorf("%q: %q is not a URI reference: %v", tc.path, a.URI, err)
		}
	}
	up := artifactOf("../up.json")
	if !strings.HasPrefix(up.URI, "file:///") || up.URIBaseID != "" {
		t.Errorf("../up.json: %+v, want an absolute file URI", up)
	}
	// Relative references decode back to the path.
	if u, _ := url.Parse(artifactOf("dir with space/a:b#c%.json").URI); u.Path != "dir with space/a:b#c%.json" || u.Scheme != "" {
		t.Errorf("decoded %+v", u)
	}
}

// TestSARIFValidAgainstOfficialSchema validates aoplint's SARIF against the official
// SARIF 2.1.0 JSON schema.
func TestSARIFValidAgainstOfficialSchema(t *testing.T) {
	schemaPath := stdschemas.SARIFSchema(t)
	var b bytes.Buffer
	if err := SARIF(&b, sampleReport(t)); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(schemaPath)
	res, err := gojsonschema.Validate(gojsonschema.NewReferenceLoader("file://"+filepath.ToSlash(abs)), gojsonschema.NewBytesLoader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors() {
		t.Errorf("SARIF invalid: %s", e)
	}
	// And the empty log.
	b.Reset()
	if err := SARIF(&b, &Report{}); err != nil {
		t.Fatal(err)
	}
	res, err = gojsonschema.Validate(gojsonschema.NewReferenceLoader("file://"+filepath.ToSlash(abs)), gojsonschema.NewBytesLoader(b.Bytes()))
	if err != nil || !res.Valid() {
		t.Errorf("empty SARIF log invalid: %v %v", err, res.Errors())
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	b.Reset()
	if err := SARIF(&b, sampleReport(t)); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	for _, r := range log.Runs[0].Results {
		a := r.Locations[0].PhysicalLocation.ArtifactLocation
		u, err := url.Parse(a.URI)
		if err != nil || (u.Scheme == "") != (a.URIBaseID == SrcRoot) || strings.ContainsAny(a.URI, " \n\x1b<>") {
			t.Errorf("artifact location %+v", a)
		}
	}
}

// TestJUnitValidAgainstXSD validates aoplint's JUnit against the Jenkins JUnit XSD,
// with time attributes on the suites and every case.
func TestJUnitValidAgainstXSD(t *testing.T) {
	var b bytes.Buffer
	if err := JUnitFailOn(&b, sampleReport(t), lint.Warning); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`<testsuites name="aoplint" tests="7" failures="7" errors="0" time="`, `<testsuite name="aoplint" tests="7"`, `time="0.002"`} {
		if !strings.Contains(out, want) {
			t.Errorf("junit lacks %q:\n%s", want, out)
		}
	}
	doc := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(doc, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	stdschemas.ValidateXML(t, doc)
}

// TestTextCannotForgeLines: names and messages with newlines or escapes print on one
// line, quoted or escaped; colour only when asked.
func TestTextCannotForgeLines(t *testing.T) {
	rep := sampleReport(t)
	var b bytes.Buffer
	if err := Text(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "\x1b") {
		t.Errorf("an escape reached the output:\n%q", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "\t") {
			continue
		}
		if !strings.Contains(l, ": error: ") && !strings.Contains(l, ": warning: ") && !strings.Contains(l, ": info: ") {
			t.Errorf("forged or broken line: %q", l)
		}
	}
	if !strings.Contains(out, `"evil\nname\x1b[31m.json":1:18: error: duplicate key`) {
		t.Errorf("unprintable name not quoted:\n%s", out)
	}
	if !strings.Contains(out, "ünï.json:1:18:") {
		t.Errorf("printable non-ASCII name was quoted:\n%s", out)
	}
	rep.Color = true
	b.Reset()
	if err := Text(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ansiRed+"error"+ansiReset) {
		t.Errorf("no colour with Color set:\n%q", b.String())
	}
	if got := SafeText("key \"a\u202eb\"\n"); got != `key "a\u202eb"\n` {
		t.Errorf("SafeText: %q", got)
	}
}

func TestSummaryCountsWhatWasNotPrinted(t *testing.T) {
	rep := &Report{Files: []linter.FileResult{{Path: "x", Messages: 1, NotKept: &linter.SeverityCounts{Errors: 1, Warnings: 2}}}}
	s := rep.Summarize()
	if s.Errors != 1 || s.Warnings != 2 || s.NotPrinted != 3 {
		t.Errorf("%+v", s)
	}
	if l := SummaryLine(s); !strings.Contains(l, "1 error, 2 warnings") || !strings.Contains(l, "3 diagnostics counted but not printed") {
		t.Error(l)
	}
	if l := SummaryLine((&Report{}).Summarize()); !strings.HasSuffix(l, "in 0 files (0 messages): nothing to lint") {
		t.Error(l)
	}
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, sampleReport(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"### aoplint: ❌ ", "| files | messages | errors | warnings | info |", "[GEN-JSON-002](" + HelpURI("GEN-JSON-002") + ")", "`dir with space/a:b#c%.json:1:18`"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| `") && strings.Count(strings.ReplaceAll(l, `\|`, ""), "|") != 5 {
			t.Errorf("broken table row: %q", l)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Error("an escape reached the markdown")
	}
	b.Reset()
	if err := Markdown(&b, &Report{}); err != nil || !strings.Contains(b.String(), "✅ no errors") || strings.Contains(b.String(), "| where |") {
		t.Errorf("empty report: %v\n%s", err, b.String())
	}
}
