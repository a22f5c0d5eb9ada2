package aop2

import (
	"os"

	"github.com/aopkit/aopkit/lint/linter"
	"strings"
	"testing"
	"unsafe"
)

// TestNumText: a number's text comes back as written, short (inline) or long
// (copied), and owns its bytes.
func TestNumText(t *testing.T) {
	for _, s := range []string{"", "0", "55", "33.333333333333336", "12345678901234567890123", "123456789012345678901234", "1e400" + strings.Repeat("0", 40)} {
		b := []byte(s)
		txt := ownNum(unsafe.String(unsafe.SliceData(b), len(b))) // lent, as a line's string is
		for i := range b {
			b[i] = 'x'
		}
		if got := txt.String(); got != s {
			t.Errorf("ownNum(%q).String() = %q", s, got)
		}
	}
}

// TestLimitsCompareExactly: AOP2-SEQ-013 and AOP2-POLICY-002 compare token
// counts and costs as written, not as float64 (2^53+1 and 2^53 are one
// float64; 1e999999 is none).
func TestLimitsCompareExactly(t *testing.T) {
	seq, err := os.ReadFile("../../fixtures/aop2/invalid/seq013_over_max_tokens.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := os.ReadFile("../../fixtures/aop2/invalid/policy_budgets_disagree_with_constraints.json")
	if err != nil {
		t.Fatal(err)
	}
	find := func(name, in, rule string) string {
		res, err := linter.LintReader(name, strings.NewReader(in), linter.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Diagnostics {
			if d.Rule == rule {
				return d.Message
			}
		}
		return ""
	}
	for _, tc := range []struct{ limit, used, want string }{
		{"9007199254740992", "9007199254740993", "tokens_output 9007199254740993 is over the task's max_tokens 9007199254740992,"},
		{"9007199254740993", "9007199254740992", ""},
		{"18446744073709551616", "18446744073709551617", "tokens_output 18446744073709551617 is over the task's max_tokens 18446744073709551616,"},
		{"3", "1e999999", "tokens_output 1e999999 is over the task's max_tokens 3,"},
		{"1e999999", "16200", ""},
		{"15000", "16200", "tokens_output 16200 is over the task's max_tokens 15000,"},
	} {
		in := strings.Replace(strings.Replace(string(seq), `"max_tokens":15000`, `"max_tokens":`+tc.limit, 1), `"tokens_output":16200`, `"tokens_output":`+tc.used, 1)
		if got := find("s.jsonl", in, "AOP2-SEQ-013"); tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("max_tokens %s, tokens_output %s: %q, want %q", tc.limit, tc.used, got, tc.want)
		}
	}
	for _, tc := range []struct {
		budget, constraint string
		disagree           bool
	}{
		{"9007199254740993", "9007199254740992", true},
		{"1e999999", "1e999998", true},
		{"0.50", "0.5", false},
		{"2.0", "0.5", true},
	} {
		in := strings.Replace(strings.Replace(string(pol), `"max_cost_usd": 2.0`, `"max_cost_usd": `+tc.budget, 1), `"max_cost_usd": 0.5`, `"max_cost_usd": `+tc.constraint, 1)
		if got := find("p.json", in, "AOP2-POLICY-002"); (got != "") != tc.disagree {
			t.Errorf("budget %s, constraint %s: %q, want a finding: %v", tc.budget, tc.constraint, got, tc.disagree)
		}
	}
}

// TestValuesCompareExactly: AOP2-VALUE-001 (percentages) and AOP2-VALUE-002
// (implausible limits and counts) judge the number as written, not as a
// float64: 100.0000000000000001 is 100 there and 1e999999 none.
func TestValuesCompareExactly(t *testing.T) {
	prog, err := os.ReadFile("../../fixtures/aop2/valid/spec_6.2_progress_update.json")
	if err != nil {
		t.Fatal(err)
	}
	task, err := os.ReadFile("../../fixtures/aop2/valid/spec_2.2_full_task.json")
	if err != nil {
		t.Fatal(err)
	}
	has := func(in, rule string) bool {
		res := linter.LintBytes("m.json", []byte(in), linter.Options{})
		for _, d := range res.Diagnostics {
			if d.Rule == rule {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		v    string
		want bool
	}{{"100.0000000000000001", true}, {"1e999999", true}, {"-1e-999999", true}, {"100.0", false}, {"60", false}} {
		in := strings.Replace(string(prog), `"percentage": 60`, `"percentage": `+tc.v, 1)
		if got := has(in, "AOP2-VALUE-001"); got != tc.want {
			t.Errorf("percentage %s: AOP2-VALUE-001 %v, want %v", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		from, to string
		want     bool
	}{
		{`"attempt": 1`, `"attempt": 0.99999999999999999`, true},
		{`"attempt": 1`, `"attempt": 1.0`, false},
		{`"max_retries": 1`, `"max_retries": -1e999999`, true},
		{`"max_retries": 1`, `"max_retries": -0`, false},
	} {
		in := strings.Replace(string(task), tc.from, tc.to, 1)
		if got := has(in, "AOP2-VALUE-002"); got != tc.want {
			t.Errorf("%s: AOP2-VALUE-002 %v, want %v", tc.to, got, tc.want)
		}
	}
}
