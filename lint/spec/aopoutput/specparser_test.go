package aopoutput

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// specResult is what the spec's parseAOPOutput returns (null fields as nil).
type specResult struct {
	Task        *string           `json:"task"`
	Summary     *string           `json:"summary"`
	DetailsFile *string           `json:"detailsFile"`
	Metrics     map[string]string `json:"metrics"`
	Status      string            `json:"status"`
	Timestamps  struct {
		Start *string `json:"start"`
		End   *string `json:"end"`
	} `json:"timestamps"`
}

// readAsSpec is what the spec's parseAOPOutput reads of text, made of this
// package's pieces (Parse, its values trimmed by TrimJS, Summary, JSWord,
// Metrics). ok is false where the two are known to part, cases the rules
// report: a marker or "[AOP:" that does not start a line (the JavaScript
// matches anywhere), a marker repeated (it takes the first that matches its
// whole pattern), a marker whose value is empty on its line (its \s* crosses
// to the next line), and "\r", U+2028 or U+2029 in the text (its .+ stops at
// them; our lines keep a "\r" inside a line).
func readAsSpec(text string) (res specResult, ok bool) {
	r := Parse([]byte(text))
	if strings.Count(text, "[AOP:") != len(r.Markers) || strings.ContainsAny(text, "\r\u2028\u2029") {
		return res, false
	}
	seen := map[string]bool{}
	for _, m := range r.Markers {
		if seen[m.Name] || m.Value == "" && m.Name != "SUMMARY" {
			return res, false
		}
		seen[m.Name] = true
	}
	value := func(name string) *string {
		if m := r.First(name); m != nil {
			return &m.Value
		}
		return nil
	}
	res.Task, res.Timestamps.Start, res.Timestamps.End = value("TASK"), value("START"), value("END")
	if m := r.First("SUMMARY"); m != nil && m.Next < len(r.Text) {
		_, s := r.Summary()
		s = sliceUTF16(s, 600)
		res.Summary = &s
	}
	if m := r.First("DETAILS_FILE"); m != nil {
		w := JSWord(m.Value)
		res.DetailsFile = &w
	}
	res.Metrics = map[string]string{}
	if m := r.First("METRICS"); m != nil {
		res.Metrics = Metrics(m.Value)
	}
	res.Status = "unknown"
	if m := r.First("STATUS"); m != nil {
		n := 0
		for n < len(m.Value) && isWordByte(m.Value[n]) {
			n++
		}
		if n > 0 {
			res.Status = strings.ToLower(m.Value[:n])
		}
	}
	return res, true
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// sliceUTF16 is JavaScript's s.slice(0, n): n UTF-16 code units, a surrogate
// cut in two left alone (JSON.stringify writes it escaped, and a Go decoder
// reads it as U+FFFD).
func sliceUTF16(s string, n int) string {
	u := utf16.Encode([]rune(s))
	if len(u) <= n {
		return s
	}
	return string(utf16.Decode(u[:n]))
}

// TestAgreesWithSpecParser runs the spec's own parseAOPOutput (testdata, in
// node) over the reports of the corpora and over the spec's example with white
// space, colons and commas put into its values, and requires what this package
// reads to be what the spec's parser reads wherever the two are not known to
// part (readAsSpec).
func TestAgreesWithSpecParser(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node: the spec's parser is JavaScript")
	}
	var texts []string
	for _, pattern := range []string{"../../../fixtures/aop-output/*/*.txt", "../../../testdata/speccorpus/aop-output/*/*.txt", "../../../testdata/speccorpus/aop-output/*/*/*.txt"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, string(data))
		}
	}
	if len(texts) < 50 {
		t.Fatalf("found %d reports in the corpora", len(texts))
	}
	example, err := os.ReadFile("../../../fixtures/aop-output/valid/spec_example_01_search_tasktype-search.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Places in the example's values and what goes there.
	places := []string{"] Search", "implementations\n", "files_scanned:", ": 234", "8,", "12s\n", "] .claude", ".json\n", "] success", "success\n", "] 2026", "12Z"}
	inserts := []string{"\ufeff", "\u0085", "\u00a0", "\t", "\v", "\f", " ", "\u3000", "\u200b", "\u180e", "\u2000", "\u202f", ":", "::", ",", ", ,", "a:b:c", "x y", "\u00e9", "_", "-", "\xff"}
	rng := rand.New(rand.NewPCG(11, 0))
	for range 400 {
		s := string(example)
		for range 1 + rng.IntN(3) {
			p := places[rng.IntN(len(places))]
			ins := inserts[rng.IntN(len(inserts))]
			at := strings.Index(s, p)
			if at < 0 {
				continue
			}
			at += 1 + rng.IntN(len(p)-1)
			s = s[:at] + ins + s[at:]
		}
		texts = append(texts, s)
	}
	in, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	// The texts as node gets them: json.Marshal wrote each byte of invalid
	// UTF-8 as U+FFFD.
	if err := json.Unmarshal(in, &texts); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "testdata/parseaopoutput.js")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var want []specResult
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(texts) {
		t.Fatalf("node's results: %v (%d for %d reports)", err, len(want), len(texts))
	}
	compared := 0
	for i, text := range texts {
		got, ok := readAsSpec(text)
		if !ok {
			continue
		}
		compared++
		if d := differ(got, want[i]); d != "" {
			t.Errorf("report %d (%.200q): %s", i, text, d)
		}
	}
	t.Logf("compared %d of %d reports with the spec's parser", compared, len(texts))
	if compared < len(texts)/2 {
		t.Fatalf("compared %d of %d reports: the known differences left out too many", compared, len(texts))
	}
}

func differ(got, want specResult) string {
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return fmt.Sprintf("%q", *p)
	}
	var d []string
	for _, f := range []struct {
		name string
		g, w *string
	}{{"task", got.Task, want.Task}, {"summary", got.Summary, want.Summary}, {"detailsFile", got.DetailsFile, want.DetailsFile},
		{"start", got.Timestamps.Start, want.Timestamps.Start}, {"end", got.Timestamps.End, want.Timestamps.End}} {
		if str(f.g) != str(f.w) {
			d = append(d, fmt.Sprintf("%s %s, the spec's parser %s", f.name, str(f.g), str(f.w)))
		}
	}
	if !maps.Equal(got.Metrics, want.Metrics) {
		d = append(d, fmt.Sprintf("metrics %v, the spec's parser %v", got.Metrics, want.Metrics))
	}
	if got.Status != want.Status {
		d = append(d, fmt.Sprintf("status %q, the spec's parser %q", got.Status, want.Status))
	}
	return strings.Join(d, "; ")
}

// TestSpecParserCopy holds testdata/parseaopoutput.js's parseAOPOutput to the
// spec's text, when the specs are beside the repository (shared/).
func TestSpecParserCopy(t *testing.T) {
	spec, err := os.ReadFile("../../../../shared/specs/aop-output-1.0.0.md")
	if err != nil {
		t.Skip("shared/specs is not beside the repository")
	}
	copyJS, err := os.ReadFile("testdata/parseaopoutput.js")
	if err != nil {
		t.Fatal(err)
	}
	fn := func(s []byte) string {
		i := bytes.Index(s, []byte("function parseAOPOutput("))
		if i < 0 {
			return ""
		}
		j := bytes.Index(s[i:], []byte("\n}\n"))
		if j < 0 {
			return ""
		}
		return string(s[i : i+j+2])
	}
	if a, b := fn(spec), fn(copyJS); a == "" || a != b {
		t.Fatalf("testdata/parseaopoutput.js's parseAOPOutput is not the spec's:\n%s\nspec:\n%s", b, a)
	}
}
