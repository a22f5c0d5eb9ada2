package aopoutput

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
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
		freeText(r)
		checkTreeOf(t, reportJSON(r))
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
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := jsonread.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !sameTree(treeOf(v), want) {
		t.Fatalf("treeOf differs from the round trip of %s", data)
	}
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
	}
}
