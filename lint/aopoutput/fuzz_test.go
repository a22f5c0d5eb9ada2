package aopoutput

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// FuzzDetectAOPOutput: the marker parser, detection and every report rule on
// arbitrary text, directly and through the driver (detected and forced), never
// panic and never report an internal error.
func FuzzDetectAOPOutput(f *testing.F) {
	files, _ := filepath.Glob("../../fixtures/aop-output/*/*")
	for _, file := range files {
		if strings.HasSuffix(file, ".golden") {
			continue
		}
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("[AOP:START]\n[AOP:SUMMARY]"))
	f.Add([]byte("[AOP:SUMMARY]\n```\n```\n```\n[AOP:END] 2026-02-05T10:30:00+99:99"))
	f.Add([]byte("\xEF\xBB\xBF[AOP:START] 2026-02-05T10:30:00Z\r\n[AOP:TASK] \xff\xfe\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := parse(data)
		r.Summary()
		checkFreeText(t, r)
		checkTreeOf(t, reportJSON(r))
		checkReportTree(t, r)
		for _, m := range r.Markers {
			if m.Off < 0 || m.Off > len(data) || m.ValOff < m.Off || m.ValOff > len(data) {
				t.Fatalf("marker %s offsets %d/%d outside %d bytes", m.Name, m.Off, m.ValOff, len(data))
			}
		}
		DetectText(data)
		lintReport(string(data), lint.Options{TaskType: "build"})
		for _, proto := range []string{"", ID} {
			res := linter.LintBytes("fuzz.txt", data, linter.Options{Protocol: proto})
			for _, d := range res.Diagnostics {
				if strings.Contains(d.Message, "internal error") {
					t.Fatalf("protocol %q: %s [%s]", proto, d.Message, d.Rule)
				}
			}
		}
	})
}

// checkTreeOf: the tree treeOf builds is the tree of the JSON round trip it
// replaces (json.Marshal, then jsonread.Parse).
func checkTreeOf(t *testing.T, v map[string]any) {
	t.Helper()
	if data, want := roundTrip(t, v); !sameTree(treeOf(v), want) {
		t.Fatalf("treeOf differs from the round trip of %s", data)
	}
}

// checkReportTree: the tree reportTree builds is the round trip of the report's
// JSON form (reportJSON).
func checkReportTree(t *testing.T, r *report) {
	t.Helper()
	data, want := roundTrip(t, reportJSON(r))
	if !sameTree(reportTree(r), want) {
		t.Fatalf("reportTree differs from the round trip of %s", data)
	}
	// In buffers from the pool, as runSchema builds it: what the last report
	// left in them must not show.
	tb := treePool.Get().(*treeBufs)
	defer treePool.Put(tb)
	defer tb.reset()
	if !sameTree(tb.build(r), want) {
		t.Fatalf("the tree built in reused buffers differs from the round trip of %s", data)
	}
}

// roundTrip is json.Marshal of v, and the tree jsonread.Parse makes of it.
func roundTrip(t *testing.T, v map[string]any) ([]byte, *jsonread.Node) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := jsonread.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, tree
}

func sameTree(a, b *jsonread.Node) bool {
	if a.Kind != b.Kind || a.Str != b.Str || a.Bool != b.Bool || len(a.Items) != len(b.Items) || len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Items {
		if !sameTree(a.Items[i], b.Items[i]) {
			return false
		}
	}
	for i := range a.Members {
		if a.Members[i].Key != b.Members[i].Key || !sameTree(a.Members[i].Value, b.Members[i].Value) {
			return false
		}
	}
	return true
}

func TestTreeOfIsTheRoundTrip(t *testing.T) {
	for _, text := range []string{
		"[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] find \xff\xfe <b>&</b>\n[AOP:SUMMARY]\n- one\n- two \u2028\n[AOP:METRICS] files: 3, z: \xc3, a: 1\n[AOP:STATUS] SUCCESS\n[AOP:END] x",
		"[AOP:SUMMARY]",
		"",
	} {
		checkTreeOf(t, reportJSON(parse([]byte(text))))
		checkReportTree(t, parse([]byte(text)))
	}
}

// The report's JSON form as maps, and the tree of its round trip without the
// round trip: reportTree's oracle (what runSchema validated before it).

// reportJSON is the report as the spec's parser reads it, plus the bullets.
func reportJSON(r *report) map[string]any {
	out := map[string]any{}
	ts := map[string]any{}
	if m := r.First("START"); m != nil {
		ts["start"] = m.Value
	}
	if m := r.First("END"); m != nil {
		ts["end"] = m.Value
	}
	out["timestamps"] = ts
	if m := r.First("TASK"); m != nil {
		out["task"] = m.Value
	}
	if r.Has("SUMMARY") {
		lines, text := r.Summary()
		out["summary"] = text
		bullets := []any{}
		for _, l := range lines {
			if l.Bullet {
				bullets = append(bullets, spec.BulletText(l.Text))
			}
		}
		out["bullets"] = bullets
	}
	if m := r.First("DETAILS_FILE"); m != nil {
		out["detailsFile"] = m.Value
	}
	if m := r.First("METRICS"); m != nil {
		mm := map[string]any{}
		for k, v := range spec.Metrics(m.Value) {
			mm[k] = v
		}
		out["metrics"] = mm
	}
	if m := r.First("STATUS"); m != nil {
		out["status"] = m.Value
	}
	return out
}

// treeOf builds the tree jsonread.Parse would make of json.Marshal(v), for the
// values reportJSON holds (objects, arrays, strings), without the round trip:
// members in key order, and each byte of invalid UTF-8 replaced by U+FFFD as
// json.Marshal does. Offsets are zero: the report's diagnostics are placed by
// pointer (offsetOf).
func treeOf(v any) *jsonread.Node {
	switch v := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		n := &jsonread.Node{Kind: jsonread.Object, Members: make([]jsonread.Member, len(keys))}
		for i, k := range keys {
			n.Members[i] = jsonread.Member{Key: marshalled(k), Value: treeOf(v[k])}
		}
		return n
	case []any:
		n := &jsonread.Node{Kind: jsonread.Array, Items: make([]*jsonread.Node, len(v))}
		for i, it := range v {
			n.Items[i] = treeOf(it)
		}
		return n
	case string:
		return &jsonread.Node{Kind: jsonread.String, Str: marshalled(v)}
	}
	panic(fmt.Sprintf("aopoutput: treeOf(%T)", v))
}

// freeTextByMap is freeText as it told marker lines before, by a map of the
// markers' offsets: the reference of its walk along the markers.
func freeTextByMap(r *report) (lines []summaryLine, part []string) {
	isMarker := map[int]bool{}
	for _, m := range r.Markers {
		isMarker[m.Off] = true
	}
	return freeLines(r, func(off int) bool { return isMarker[off] })
}

func checkFreeText(t *testing.T, r *report) {
	t.Helper()
	lines, part := freeText(r)
	wantLines, wantPart := freeTextByMap(r)
	if !slices.Equal(lines, wantLines) || !slices.Equal(part, wantPart) {
		t.Fatalf("freeText(%q) = %v %v, by the map of marker offsets %v %v", r.Text, lines, part, wantLines, wantPart)
	}
}

// TestFreeTextAgreesWithTheMap: freeText's walk along the markers finds the
// marker lines the map of their offsets did, over the report fixtures.
func TestFreeTextAgreesWithTheMap(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/aop-output/*/*")
	texts := []string{"[AOP:START] x\n  [AOP:TASK] y\n[AOP:X]\n[AOP:SUMMARY]\n- a\n  [AOP:END] z\ntail [AOP:END]\n[AOP:END]"}
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && !strings.HasSuffix(file, ".golden") {
			texts = append(texts, string(data))
		}
	}
	for _, text := range texts {
		checkFreeText(t, parse([]byte(text)))
	}
}

// FuzzFirstWord holds firstWord's byte loop to the rune scan it replaces.
func FuzzFirstWord(f *testing.F) {
	for _, s := range []string{"", "SUCCESS", "BLOCKED: x", "partial_1 done", "é", "AB\xffC", "x\u00e9y", "_9-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := s
		if i := strings.IndexFunc(s, func(r rune) bool {
			return !(r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z')
		}); i >= 0 {
			want = s[:i]
		}
		if got := firstWord(s); got != want {
			t.Fatalf("firstWord(%q) = %q, want %q", s, got, want)
		}
	})
}
