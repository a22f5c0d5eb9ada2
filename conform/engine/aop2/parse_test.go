package aop2

import (
	"bytes"
	"strings"
	"testing"
	"time"

	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// TestParseOddInput: bad input never panics, and is either no object or a problem.
func TestParseOddInput(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		``, `null`, `[]`, `42`, `"TASK"`, `{}`, `{"aop_version":2}`, `{} {}`,
		`{"aop_version":"2.0.2-C","message_type":"TASK","session":[],"target":"x","task":7}`,
		`{"aop_version":"2.0.2-C","message_type":"TASK","execution_policy":{"alternative_models":[1,null,{"provider":"X"}],"heartbeat":"on","retry_backoff_seconds":"5","max_retries":-3}}`,
		`{"aop_version":"2.0.2-C","task":{"expected_outputs":[null,1,{"rollback_snapshot":"yes"}],"inputs":{}},"phases":[1,{"checkpoints":3}]}`,
		`{"aop_version":"2.0.2-C","extensions":{"bad":1,"x_ok":2},"task":{"extensions":{"y":1}}}`,
	} {
		task, problems, err := ParseTask([]byte(in))
		if err == nil && task == nil {
			t.Errorf("%s: no task and no error", in)
		}
		if err == nil && len(problems) == 0 {
			t.Errorf("%s: accepted without problems", in)
		}
	}
}

// TestCheckResponseOddInput: RESPONSE validation copes with any shape.
func TestCheckResponseOddInput(t *testing.T) {
	t.Parallel()
	task, _, err := ParseTask(taskWith(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		`{}`, `{"agent":"x","task_status":[],"execution_summary":7,"cost_tracking":"free"}`,
		`{"task_status":{"state":"DONE","final_signal":1},"error_details":{"error_code":null}}`,
	} {
		m, err := aop2spec.DecodeResponse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if _, ps := checkResponse([]byte(in), m, task, "CODEX", codex); len(ps) == 0 {
			t.Errorf("%s: no problem found", in)
		}
	}
}

func TestEffectiveTimeoutPrecedence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		set  map[string]any
		want time.Duration
		from string
	}{
		{nil, 45 * time.Second, "guard_rails.timeout_seconds"},
		{map[string]any{"guard_rails/timeout_seconds": nil}, 60 * time.Second, "execution_policy.timeout_seconds"},
		{map[string]any{"guard_rails/timeout_seconds": nil, "execution_policy/timeout_seconds": nil}, 0, ""},
	} {
		task, _, err := ParseTask(taskWith(t, tc.set))
		if err != nil {
			t.Fatal(err)
		}
		if task.Policy.Timeout != tc.want || task.Policy.TimeoutFrom != tc.from {
			t.Errorf("%v: timeout %s from %q, want %s from %q", tc.set, task.Policy.Timeout, task.Policy.TimeoutFrom, tc.want, tc.from)
		}
	}
}

func TestTriggers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		trigger, outcome string
		now, later       bool
	}{
		{"TIMEOUT", "E_TIMEOUT", true, true},
		{"TIMEOUT", "E_PROCESS_CRASH", false, false},
		{"FIRST_ERROR", "E_UNKNOWN", true, true},
		{"CRITICAL_ERROR", "E_PROCESS_CRASH", true, true},
		{"CRITICAL_ERROR", "E_UNKNOWN", false, false},
		{"ALL_ERRORS", "E_UNKNOWN", false, true},
		{"COST_LIMIT_EXCEEDED", "E_COST_LIMIT_EXCEEDED", true, true},
		{"COST_LIMIT_EXCEEDED", "E_TIMEOUT", false, false},
	} {
		if got := immediate(tc.trigger, tc.outcome); got != tc.now {
			t.Errorf("immediate(%s, %s) = %v", tc.trigger, tc.outcome, got)
		}
		if got := eligible(tc.trigger, tc.outcome); got != tc.later {
			t.Errorf("eligible(%s, %s) = %v", tc.trigger, tc.outcome, got)
		}
	}
	if !strings.HasPrefix(recordID("s", 1), "") || len(recordID("s", 1)) != 36 {
		t.Error("audit record ids are UUIDs")
	}
}

// TestSchemaByTheLinter: TASK and RESPONSE are validated by the linter's schema
// rule, not by a copy of it: what the copy never looked at (the execution
// profile's enum, a timing type) is a schema problem now, and a schema problem
// of a RESPONSE makes it malformed.
func TestSchemaByTheLinter(t *testing.T) {
	t.Parallel()
	_, ps, err := ParseTask(taskWith(t, map[string]any{"target/execution_profile": "turbo"}))
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(ps, "AOP2-SCHEMA-001", "/target/execution_profile") {
		t.Errorf("execution_profile \"turbo\" passed: %v", ps)
	}
	// The harness expands ${NOW} before the engine reads the TASK.
	task, ps, err := ParseTask(bytes.ReplaceAll(taskWith(t, nil), []byte("${NOW}"), []byte("2026-02-26T12:35:01Z")))
	if err != nil || len(ps) > 0 {
		t.Fatalf("the base TASK: %v %v", ps, err)
	}
	resp := `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"RESPONSE","session_id":"` + task.SessionID +
		`","task_id":"` + task.TaskID + `","agent":{"name":"a","provider":"` + task.Provider + `","model":"` + task.Model +
		`"},"task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"done"},"execution_summary":{"summary":"done","actions":["a"]},` +
		`"timing":{"started_at":"2026-02-26T12:35:01Z","completed_at":"2026-02-26T12:40:32Z","duration_seconds":"long"}}`
	m, err := aop2spec.DecodeResponse([]byte(resp))
	if err != nil {
		t.Fatal(err)
	}
	_, ps = checkResponse([]byte(resp), m, task, task.Provider, task.Model)
	if !hasRule(ps, "AOP2-SCHEMA-001", "/timing/duration_seconds") || tolerated("AOP2-SCHEMA-001", "RESPONSE") {
		t.Errorf("duration_seconds \"long\" passed: %v", ps)
	}
	ok := strings.Replace(resp, `"long"`, `331`, 1)
	m, _ = aop2spec.DecodeResponse([]byte(ok))
	if _, ps = checkResponse([]byte(ok), m, task, task.Provider, task.Model); len(ps) > 0 {
		t.Errorf("a valid RESPONSE has problems: %v", ps)
	}
}

func hasRule(ps []Problem, rule, ptr string) bool {
	for _, p := range ps {
		if p.Rule == rule && p.Pointer == ptr {
			return true
		}
	}
	return false
}
