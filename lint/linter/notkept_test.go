package linter

import (
	"fmt"
	"strings"
	"testing"
)

// TestDiagnosticsPastTheLimitCount: 10,001 warnings followed by an error keep only
// MaxDiagnostics diagnostics, but every one is counted by severity, so the error
// still fails the input (issue 10: "0 errors" and exit 0 let a CI gate be walked past).
func TestDiagnosticsPastTheLimitCount(t *testing.T) {
	var b strings.Builder
	for i := 0; i <= MaxDiagnostics; i++ { // ids that are not UUIDs: one warning each
		fmt.Fprintf(&b, `{"type":"event:log","id":"log-%d","timestamp":"2026-11-22T10:%02d:%02d.000Z","payload":{"level":"info","message":"m"}}`+"\n", i, i/60%60, i%60)
	}
	b.WriteString(`{"type":"event:log","id":"last","timestamp":"not a time","payload":{"level":"info","message":"m"}}` + "\n")
	res, err := LintReader("many.jsonl", strings.NewReader(b.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) > MaxDiagnostics+1 {
		t.Errorf("kept %d diagnostics, limit %d (+1 note)", len(res.Diagnostics), MaxDiagnostics)
	}
	if res.NotKept == nil || res.NotKept.Errors < 1 {
		t.Fatalf("the error past the limit is not counted: %+v", res.NotKept)
	}
	errs, warns, _ := res.Counts()
	if errs < 1 || warns <= MaxDiagnostics {
		t.Errorf("counts: %d errors, %d warnings; want the error and every warning", errs, warns)
	}
}
