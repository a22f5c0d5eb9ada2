package aopoutput

import (
	"maps"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

const example = "[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] Search for auth implementations\n\n[AOP:SUMMARY]\n" +
	"- Found 8 auth-related files in src/auth/\n- Main handler: src/auth/handler.ts (450 lines)\n\n" +
	"[AOP:DETAILS_FILE] none\n[AOP:METRICS] files_scanned: 234, matches: 8\n[AOP:STATUS] success\n[AOP:END] 2026-02-05T10:30:12Z\n"

func TestParse(t *testing.T) {
	r := Parse([]byte(example))
	var names []string
	for _, m := range r.Markers {
		names = append(names, m.Name)
		if _, ok := Rank(m.Name); !ok {
			t.Errorf("marker %s has no rank", m.Name)
		}
	}
	if got := strings.Join(names, ","); got != strings.Join(Markers, ",") {
		t.Fatalf("markers %s", got)
	}
	lines, text := r.Summary()
	if Bullets(lines) != 2 || !strings.HasPrefix(text, "- Found 8") || strings.HasSuffix(text, "\n") {
		t.Errorf("summary %+v %q", lines, text)
	}
	if m := Metrics(r.First("METRICS").Value); m["matches"] != "8" {
		t.Errorf("metrics %v", m)
	}
	if off := r.First("STATUS").ValOff; example[off:off+7] != "success" {
		t.Errorf("STATUS value at %d", off)
	}
}

// TestSummaryLimit: the table's rows by their names; a name the table does not
// have (code_changes, with an underscore) gets the format's 500.
func TestSummaryLimit(t *testing.T) {
	for name, want := range map[string]int{"build": 200, "Code": 300, " test-results ": 400, "analysis": 600, "docs": 500, "code_changes": 500, "": 500} {
		got, known := SummaryLimit(name)
		if got != want || known != (want != 500 || name == "docs") {
			t.Errorf("SummaryLimit(%q) = %d, %v; want %d", name, got, known, want)
		}
	}
	if !Required("END") || Required("METRICS") || Required("FILES") || !ValidStatus("partial") || ValidStatus("SUCCESS") {
		t.Error("markers or statuses")
	}
	for s, want := range map[string]bool{"- a": true, "* a": true, "1. a": true, "12) a": true, "-a": false, "a": false, "•": true} {
		if IsBullet(s) != want {
			t.Errorf("IsBullet(%q) != %v", s, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(example))
	f.Add([]byte("\xEF\xBB\xBF[AOP:START]\r\n [AOP:SUMMARY] x\n- y"))
	f.Add([]byte("[AOP:SUMMARY] x \n- y\n[AOP:END]"))
	f.Add([]byte("[AOP:SUMMARY]\f\n- y\r\n- z\n\n"))
	f.Add([]byte("[AOP:SUMMARY]\u00a0x\n- y"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Parse(data)
		if _, text := r.Summary(); text != joinedSummary(r) {
			t.Fatalf("summary text %q, joined %q", text, joinedSummary(r))
		}
		for _, m := range r.Markers {
			if m.Off < 0 || m.Off > len(data) || m.ValOff < m.Off || m.ValOff > len(data) || m.Next < m.Off || m.Next > len(data) {
				t.Fatalf("marker %s offsets %d/%d/%d outside %d bytes", m.Name, m.Off, m.ValOff, m.Next, len(data))
			}
			if name, _, ok := ParseMarker(string(data[m.Off:])); !ok || name != m.Name {
				t.Fatalf("marker %s at %d not found again", m.Name, m.Off)
			}
		}
	})
}

// joinedSummary is the summary's text as the spec's parseAOPOutput makes it:
// the SUMMARY marker's value and every line after its line up to the next
// marker, joined by "\n" and trimmed (the oracle of Summary's text).
func joinedSummary(r *Report) string {
	m := r.First("SUMMARY")
	if m == nil {
		return ""
	}
	parts := []string{m.Value}
	for _, l := range r.Lines {
		if l.Off > m.Off && l.Off < m.Next {
			parts = append(parts, l.Text)
		}
	}
	return jsTrim(strings.Join(parts, "\n"))
}

// jsTrim is JavaScript's String.prototype.trim as ECMAScript defines it: the
// oracle of TrimJS. WhiteSpace is tab, vertical tab, form feed, U+FEFF and any
// space separator (Zs); LineTerminator is line feed, carriage return, U+2028
// and U+2029.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.Is(unicode.Zs, r) || strings.ContainsRune("\t\v\f\ufeff\n\r\u2028\u2029", r)
	})
}

// The regexps the package matched with before its byte checks: their oracles.
var (
	markerOracle = regexp.MustCompile(`^[ \t]*\[AOP:([A-Z_]+)\]`)
	bulletOracle = regexp.MustCompile(`^(?:[-*+•–]|\d{1,2}[.)])(?:\s|$)`)
)

func agreeWithRegexps(t *testing.T, s string) {
	t.Helper()
	g := markerOracle.FindStringSubmatchIndex(s)
	ns, ne, end, ok := markerAt(s)
	if ok != (g != nil) || ok && (ns != g[2] || ne != g[3] || end != g[1]) {
		t.Fatalf("markerAt(%q) = %d %d %d %v, regexp %v", s, ns, ne, end, ok, g)
	}
	b := bulletOracle.FindStringIndex(s)
	if n := bulletLen(s); (n >= 0) != (b != nil) || b != nil && n != b[1] {
		t.Fatalf("bulletLen(%q) = %d, regexp %v", s, n, b)
	}
	if got, want := BulletText(s), strings.TrimSpace(bulletOracle.ReplaceAllString(s, "")); got != want {
		t.Fatalf("BulletText(%q) = %q, regexp %q", s, got, want)
	}
	if got, want := TrimBlanksLeft(s), strings.TrimLeft(s, " \t"); got != want {
		t.Fatalf("TrimBlanksLeft(%q) = %q, strings %q", s, got, want)
	}
	if got, want := TrimBlanksRight(s), strings.TrimRight(s, " \t"); got != want {
		t.Fatalf("TrimBlanksRight(%q) = %q, strings %q", s, got, want)
	}
}

var lineSeeds = []string{"", "[AOP:START] x", " \t[AOP:A_B]", "[AOP:]", "[AOP:a]", "[AOP:AB", "[AOP:AB]]", "x[AOP:A]",
	"- a", "-", "-a", "* b", "+\tc", "• x", "•", "–\ny", "— x", "1. a", "12) b", "123. c", "1.", "1)x", "0.\f", "١. a",
	"\xe2\x80", "\xe2\x80\xa2\xff", " - a", "a \t", " \t ", "\t x\t\n", "9", "99", "99.", "1.5 x"}

func FuzzByteChecks(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add(s)
	}
	f.Fuzz(agreeWithRegexps)
}

// metricsBySplit is Metrics as the spec's parseAOPOutput writes it (split, then
// split again): the oracle of the walk in place.
func metricsBySplit(v string) map[string]string {
	out := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		kv := strings.Split(pair, ":")
		if len(kv) < 2 {
			continue
		}
		k, val := jsTrim(kv[0]), jsTrim(kv[1])
		if k != "" && val != "" {
			out[k] = val
		}
	}
	return out
}

var metricsSeeds = []string{"a:\ufeff", "a: \u0085", "\u00a0:b", "a::b", "a: 1:2", "", "a: 1", "a: 1, b: 2", "a:1:2, b", ",,:,", "a: 1, a: 2", "b: 1, a: 2, b: 3, a: 4, b: 5", " k : v : w ,x:y", ":", "a:", ":b", "a: 1,"}

func FuzzMetrics(f *testing.F) {
	for _, v := range metricsSeeds {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := Metrics(v), metricsBySplit(v); !maps.Equal(got, want) {
			t.Errorf("Metrics(%q) = %v, want %v", v, got, want)
		}
		// MetricPairs (which Metrics is made of) appends the pairs sorted,
		// one per key.
		ps := MetricPairs([]Pair{{"before", "x"}}, v)
		if ps[0] != (Pair{"before", "x"}) {
			t.Fatalf("MetricPairs(%q) changed what dst held: %v", v, ps)
		}
		for i := 2; i < len(ps); i++ {
			if ps[i-1].Key >= ps[i].Key {
				t.Fatalf("MetricPairs(%q) = %v: not sorted by key, one per key", v, ps)
			}
		}
	})
}

// TestRank holds Rank's switch to Markers: each marker its index, a name one
// edit away from one unknown.
func TestRank(t *testing.T) {
	if len(Markers) != markerKinds {
		t.Fatalf("%d markers, markerKinds %d", len(Markers), markerKinds)
	}
	for i, m := range Markers {
		if got, ok := Rank(strings.Clone(m)); got != i || !ok {
			t.Errorf("Rank(%q) = %d, %v; want %d", m, got, ok, i)
		}
		for _, near := range []string{m[:len(m)-1], m + "S", strings.ToLower(m), "X" + m[1:]} {
			if got, ok := Rank(near); got != 0 || ok {
				t.Errorf("Rank(%q) = %d, %v; want unknown", near, got, ok)
			}
		}
	}
}

// firstAgrees holds First, which answers from Parse's index, to a search of
// the markers, for the markers of AOP 1.0.0, the names text has and an unknown
// one; and a report whose Markers were replaced is searched.
func firstAgrees(t *testing.T, text string) {
	r := Parse([]byte(text))
	search := func(name string) *Marker {
		for i := range r.Markers {
			if r.Markers[i].Name == name {
				return &r.Markers[i]
			}
		}
		return nil
	}
	names := append([]string{"INFO", ""}, Markers...)
	for _, m := range r.Markers {
		names = append(names, m.Name)
	}
	for _, name := range names {
		if got, want := r.First(name), search(name); got != want {
			t.Fatalf("%q: First(%q) = %v, the search %v", text, name, got, want)
		}
	}
	if len(r.Markers) > 0 {
		copied := *r
		copied.Markers = append([]Marker(nil), r.Markers[1:]...)
		for _, name := range Markers {
			want := -1
			for i := range copied.Markers {
				if copied.Markers[i].Name == name {
					want = i
					break
				}
			}
			got := copied.First(name)
			if (got == nil) != (want < 0) || (got != nil && got != &copied.Markers[want]) {
				t.Fatalf("%q without its first marker: First(%q) = %v, want index %d", text, name, got, want)
			}
		}
	}
}

var firstSeeds = []string{
	example, "", "[AOP:START] x\n[AOP:START] y\n[AOP:END] z", "  [AOP:TASK] t\n[AOP:INFO] i\n[AOP:TASK] u",
	"[AOP:END]\n[AOP:STATUS] s\n[AOP:METRICS] m\n[AOP:DETAILS_FILE] d\n[AOP:SUMMARY]\n- a\n[AOP:TASK] t\n[AOP:START] s",
}

func FuzzFirst(f *testing.F) {
	for _, s := range firstSeeds {
		f.Add(s)
	}
	f.Fuzz(firstAgrees)
}

func TestTrimJS(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": "", " x ": "x", "\ufeffx\ufeff": "x", "\u0085x\u0085": "\u0085x\u0085", "\u00a0\u2028x\u3000\u205f": "x",
		"\t\v\f\r\n x": "x", "\u200bx": "\u200bx", "\u180ex": "\u180ex", "x\xff ": "x\xff", " \xe2\x80": "\xe2\x80",
	} {
		if got := TrimJS(in); got != want || got != jsTrim(in) {
			t.Errorf("TrimJS(%q) = %q, want %q (oracle %q)", in, got, want, jsTrim(in))
		}
	}
}

func TestJSWord(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a.json": "a.json", " a b": "a", "a\u00a0b": "a", "a\fb": "a", "a\u0085b": "a\u0085b", "\ufeffa\ufeffb": "a", "a\u2028b": "a", "": "",
	} {
		if got := JSWord(in); got != want {
			t.Errorf("JSWord(%q) = %q, want %q", in, got, want)
		}
		if HasJSSpace(in) != (TrimJS(in) != in || JSWord(in) != in) {
			t.Errorf("HasJSSpace(%q) = %v", in, HasJSSpace(in))
		}
	}
}

func FuzzTrimJS(f *testing.F) {
	for _, s := range append(lineSeeds, " \ufeff\u0085 ", "\u2000\u200a\u200b", "\xef\xbb") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := TrimJS(s), jsTrim(s); got != want {
			t.Fatalf("TrimJS(%q) = %q, oracle %q", s, got, want)
		}
		for _, r := range s {
			if IsJSSpace(r) != (jsTrim(string(r)) == "") {
				t.Fatalf("IsJSSpace(%U) = %v, oracle says the opposite", r, IsJSSpace(r))
			}
		}
	})
}
