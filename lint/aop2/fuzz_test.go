package aop2_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// FuzzDetectAop2 feeds arbitrary bytes to the linter, detecting and with aop2
// forced, seeded from fixtures/aop2. Nothing may panic; rules that panic are turned
// into "internal error" diagnostics by the driver, which the fuzzer treats as bugs.
func FuzzDetectAop2(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "aop2", dir, "*"))
		for _, file := range files {
			if strings.HasSuffix(file, ".golden") {
				continue
			}
			data, err := os.ReadFile(file)
			if err == nil && len(data) < 16<<10 {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T12:37:01Z","progress_percentage":1e308}`))
	f.Add([]byte(`{"message_type":"TASK","task":{"task_id":"A","parent_task_id":"A"},"extensions":{"":{"extensions":{}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []linter.Options{{}, {Protocol: "aop2"}} {
			res := linter.LintBytes("fuzz.json", data, opts)
			for _, d := range res.Diagnostics {
				if strings.Contains(d.Message, "internal error") {
					t.Fatalf("%s: %s", d.Rule, d.Message)
				}
			}
		}
	})
}
