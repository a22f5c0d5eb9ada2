package aopoutput

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
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
		reportJSON(r)
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
