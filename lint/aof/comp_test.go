package aof

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
)

// TestCompTestsExact: AOF-COMP-002 compares the counts exactly, not as
// float64: 1e999999 (no float64) passed of 3 is a miscount, 2^64+1 > 2^64 is
// caught, and 2^53+1 = 2^53 + 1 (one float64 with 2^53) is no false error.
func TestCompTestsExact(t *testing.T) {
	msg := func(total, passed, failed string) string {
		return `{"protocol":"aof","version":1,"type":"completion.report","taskId":"TASK-2026-02-09-057","fromAgent":"swe-backend","toAgent":"dispatcher",` +
			`"sentAt":"2026-02-09T21:10:00.000Z","payload":{"outcome":"done","summaryRef":"outputs/summary.md","deliverables":[],` +
			`"tests":{"total":` + total + `,"passed":` + passed + `,"failed":` + failed + `},"blockers":[]}}`
	}
	for _, tc := range []struct {
		name, total, passed, failed string
		want                        string // the finding's message, "" for none
	}{
		{"1e999999 of 3", "3", "1e999999", "0", "tests.passed (1e999999) + tests.failed (0) exceeds tests.total (3)"},
		{"2^64+1 > 2^64", "18446744073709551616", "18446744073709551617", "0",
			"tests.passed (18446744073709551617) + tests.failed (0) = 18446744073709551617 exceeds tests.total (18446744073709551616)"},
		{"2^53+1 = 2^53 + 1", "9007199254740993", "9007199254740992", "1", ""},
		{"2^53+2 > 2^53+1", "9007199254740993", "9007199254740992", "2",
			"tests.passed (9007199254740992) + tests.failed (2) = 9007199254740994 exceeds tests.total (9007199254740993)"},
		{"within", "4", "3", "1", ""},
		{"over", "3", "3", "1", "tests.passed (3) + tests.failed (1) = 4 exceeds tests.total (3)"},
		{"exponents", "3e2", "2.5e2", "5e1", ""},
		{"not counts", "3", "-1", "1.5", ""}, // the schema's findings
	} {
		res := linter.LintBytes("c.json", []byte(msg(tc.total, tc.passed, tc.failed)), linter.Options{})
		got := ""
		for _, d := range res.Diagnostics {
			if d.Rule == CompTests.ID {
				got = d.Message
			}
		}
		if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want+":") {
			t.Errorf("%s: AOF-COMP-002 says %q, want %q", tc.name, got, tc.want)
		}
	}
}
