package linter

import (
	"fmt"
	"github.com/aopkit/aopkit/lint"
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

// TestBound: findings made after the linter (stale baseline entries, unused
// suppressions) go through the same cap: past MaxDiagnostics they are counted,
// and the one note says how many of each severity were not kept in all.
func TestBound(t *testing.T) {
	r := FileResult{Path: "p"}
	for i := range MaxDiagnostics + 5 {
		r.Diagnostics = append(r.Diagnostics, lint.Diagnostic{Path: "p", Rule: "X", Severity: lint.Warning, Line: i + 1, Message: "m"})
	}
	r.Bound()
	if len(r.Diagnostics) != MaxDiagnostics+1 || r.NotKept == nil || r.NotKept.Warnings != 5 {
		t.Fatalf("kept %d, not kept %+v", len(r.Diagnostics), r.NotKept)
	}
	// An input the linter capped already: its note is replaced, its counts add up.
	r.Diagnostics = append(r.Diagnostics, lint.Diagnostic{Path: "p", Rule: "X", Severity: lint.Error, Line: 1, Message: "m"})
	r.Bound()
	r.AddNotKept(SeverityCounts{Infos: 2})
	notes := 0
	for _, d := range r.Diagnostics {
		if strings.Contains(d.Message, "not kept") {
			notes++
			if !strings.HasPrefix(d.Message, "8 more diagnostics") || !strings.Contains(d.Message, "0 errors, 6 warnings, 2 infos") {
				t.Errorf("note %q", d.Message)
			}
		}
	}
	if notes != 1 || len(r.Diagnostics) != MaxDiagnostics+1 {
		t.Errorf("%d notes, %d kept", notes, len(r.Diagnostics))
	}
	if e, w, i := r.Counts(); e != 1 || w != MaxDiagnostics+5 || i != 3 {
		t.Errorf("counts %d/%d/%d, want every finding counted once (the note is an info)", e, w, i)
	}
}
