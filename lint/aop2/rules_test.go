package aop2_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/aop2"
)

// minimalTask is the contract's §2.1 envelope.
const minimalTask = `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"TASK",
"session":{"session_id":"S","created_at":"2026-02-26T14:00:00Z","orchestrator":"Cyclops","origin":"CLI"},
"target":{"agent_name":"Emma","role":"EXECUTOR","provider":"CODEX","model":"gpt-5.3-codex"},
"task":{"task_id":"TASK-001","objective":"Read and summarize the README.md file.","category":"ANALYSIS","complexity":"LOW","environment":{"workspace_root":"C:/ai/my-project"}}}`

// with returns minimalTask changed by f.
func with(t *testing.T, f func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(minimalTask), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, _ := json.Marshal(m)
	return string(b)
}

func task(m map[string]any) map[string]any { return m["task"].(map[string]any) }

func TestSingleMessageRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  string
		want string // "RULE severity", or "" for clean
	}{
		{"minimal TASK", minimalTask, ""},
		{"objective 40,000 chars", with(t, func(m map[string]any) { task(m)["objective"] = strings.Repeat("é", 40000) }), ""},
		{"objective 40,001 chars", with(t, func(m map[string]any) { task(m)["objective"] = strings.Repeat("é", 40001) }), "AOP2-LIMIT-001 warning"},
		{"objective 50,001 chars", with(t, func(m map[string]any) { task(m)["objective"] = strings.Repeat("a", 50001) }), "AOP2-LIMIT-001 warning"},
		{"100 inputs", with(t, func(m map[string]any) { task(m)["inputs"] = inputs(100, false) }), ""},
		{"101 inputs", with(t, func(m map[string]any) { task(m)["inputs"] = inputs(101, false) }), "AOP2-LIMIT-002 error"},
		{"51 expected outputs", with(t, func(m map[string]any) { task(m)["expected_outputs"] = inputs(51, true) }), "AOP2-LIMIT-002 error"},
		{"extension key at depth", with(t, func(m map[string]any) {
			task(m)["environment"].(map[string]any)["extensions"] = map[string]any{"x_ok": 1, "bad": 2}
		}), "AOP2-EXT-001 error"},
		{"keys inside an extension value are free", with(t, func(m map[string]any) {
			m["extensions"] = map[string]any{"x_vendor": map[string]any{"enabled": true, "extensions": map[string]any{"free": 1}}}
		}), ""},
		{"extensions null", with(t, func(m map[string]any) { m["extensions"] = nil }), ""},
		{"unknown member", with(t, func(m map[string]any) { m["target"].(map[string]any)["temperature"] = 0.2 }), "AOP2-ENVELOPE-007 warning"},
		{"task_status in TASK", with(t, func(m map[string]any) { m["task_status"] = map[string]any{"state": "PENDING"} }), "AOP2-ENVELOPE-003 error"},
		{"no target", with(t, func(m map[string]any) { delete(m, "target") }), "AOP2-ENVELOPE-004 error"},
		{"protocol family", with(t, func(m map[string]any) { m["protocol_family"] = "AOP2" }), "AOP2-ENVELOPE-002 error"},
		{"no protocol family", with(t, func(m map[string]any) { delete(m, "protocol_family") }), "AOP2-ENVELOPE-002 error"},
		{"version 2.1 accepted", with(t, func(m map[string]any) { m["aop_version"] = "2.1.0" }), ""},
		{"version 3", with(t, func(m map[string]any) { m["aop_version"] = "3.0" }), "AOP2-VERSION-002 error"},
		{"no version", with(t, func(m map[string]any) { delete(m, "aop_version") }), "AOP2-VERSION-001 error"},
		{"enum", with(t, func(m map[string]any) { task(m)["category"] = "analysis" }), "AOP2-SCHEMA-001 error"},
		{"fallback trigger", with(t, func(m map[string]any) {
			m["execution_policy"] = map[string]any{"alternative_models": []any{map[string]any{"provider": "GEMINI", "model": "g", "fallback_trigger": "ERROR"}}}
		}), "AOP2-POLICY-003 error"},
		{"timeouts equal", with(t, func(m map[string]any) {
			m["execution_policy"] = map[string]any{"timeout_seconds": 60}
			m["guard_rails"] = map[string]any{"timeout_seconds": 60}
		}), ""},
		{"timeouts differ", with(t, func(m map[string]any) {
			m["execution_policy"] = map[string]any{"timeout_seconds": 60}
			m["guard_rails"] = map[string]any{"timeout_seconds": 30}
		}), "AOP2-POLICY-001 info"},
		{"budgets vs constraints", with(t, func(m map[string]any) {
			task(m)["constraints"] = map[string]any{"max_tokens": 100}
			task(m)["budgets"] = map[string]any{"max_tokens": 200}
		}), "AOP2-POLICY-002 warning"},
		{"created_at not ISO", with(t, func(m map[string]any) { m["session"].(map[string]any)["created_at"] = "yesterday" }), "AOP2-TIME-001 error"},
		{"error code", `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"VERSION_FALLBACK","session_id":"S","timestamp":"2026-02-26T14:00:00Z","error_code":"E_BROKEN"}`, "AOP2-CODE-001 warning"},
		{"known error code", `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"VERSION_FALLBACK","session_id":"S","timestamp":"2026-02-26T14:00:00Z","error_code":"E_SCHEMA_VALIDATION"}`, ""},
		{"percentage", `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T14:00:00Z","progress_percentage":-1}`, "AOP2-VALUE-001 error"},
		{"event name", `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"PING","session_id":"S","timestamp":"2026-02-26T14:00:00Z"}`, "AOP2-ENVELOPE-006 error"},
	}
	for _, tt := range tests {
		ds := lintText(t, tt.msg)
		var got []string
		for _, d := range ds {
			f := strings.Fields(d)
			got = append(got, f[0]+" "+strings.TrimSuffix(f[1], ":"))
		}
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("%s: want clean, got %v", tt.name, brief(ds))
		case tt.want != "" && (len(got) != 1 || got[0] != tt.want):
			t.Errorf("%s: want exactly %q, got %v", tt.name, tt.want, brief(ds))
		}
	}
}

func inputs(n int, outputs bool) []any {
	out := make([]any, n)
	for i := range out {
		it := map[string]any{"type": "FILE", "path": "f"}
		if outputs {
			it["description"] = "d"
		}
		out[i] = it
	}
	return out
}

// brief keeps a failure message short.
func brief(ds []string) []string {
	if len(ds) > 3 {
		ds = append(ds[:3:3], "...")
	}
	for i, d := range ds {
		if len(d) > 160 {
			ds[i] = d[:160] + "..."
		}
	}
	return ds
}

func TestFinalState(t *testing.T) {
	t.Parallel()
	base := `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"RESPONSE","session_id":"S","task_id":"T",
"agent":{"name":"a","provider":"OTHER","model":"m"},"execution_summary":{"summary":"s","actions":["a"]},
"task_status":{"state":%q,"final_signal":%q}}`
	tests := []struct {
		state, signal string
		flagged       bool
	}{
		{"COMPLETED", "SUCCESS", false}, {"COMPLETED", "PARTIAL_SUCCESS", false}, {"FAILED", "FAILURE", false},
		{"ABORTED", "ABORTED", false}, {"SKIPPED", "SUCCESS", false},
		{"IN_PROGRESS", "SUCCESS", true}, {"PENDING", "FAILURE", true}, {"FAILED", "SUCCESS", true}, {"COMPLETED", "FAILURE", true},
	}
	for _, tt := range tests {
		ds := lintText(t, strings.Replace(strings.Replace(base, "%q", `"`+tt.state+`"`, 1), "%q", `"`+tt.signal+`"`, 1))
		if has(ds, "AOP2-STATUS-001") != tt.flagged || len(ds) > 1 {
			t.Errorf("state %s, final_signal %s: %v", tt.state, tt.signal, ds)
		}
	}
}

func TestDelegationDepth(t *testing.T) {
	t.Parallel()
	line := func(id, parent string) string {
		return with(t, func(m map[string]any) {
			task(m)["task_id"] = id
			if parent != "" {
				task(m)["parent_task_id"] = parent
			}
		})
	}
	chain := []string{line("A", ""), line("B", "A"), line("C", "B"), line("D", "C")}
	if ds := lintText(t, strings.Join(chain, "\n")+"\n"); len(ds) != 0 {
		t.Errorf("depth 3 is allowed: %v", ds)
	}
	chain = append(chain, line("E", "D"))
	ds := lintText(t, strings.Join(chain, "\n")+"\n")
	if !has(ds, "AOP2-SEQ-011") || len(ds) != 1 {
		t.Errorf("depth 4: %v", ds)
	}
	// An unknown parent counts as a root: depth 1.
	if ds := lintText(t, line("X", "NOT-SEEN")+"\n"+line("Y", "X")+"\n"); len(ds) != 0 {
		t.Errorf("unknown parent: %v", ds)
	}
}

// TestFractionalPointers: the upstream dialect's fractional numbers are reported
// at their pointers, nested and in arrays, with escaped keys; not in extensions.
func TestFractionalPointers(t *testing.T) {
	msg := with(t, func(m map[string]any) {
		m["execution_policy"] = map[string]any{"timeout_seconds": 60.5, "retry_backoff_seconds": []any{30, 120.25}}
		m["phases"] = []any{map[string]any{"a/b~c": map[string]any{"interval_seconds": 1.5}}, []any{map[string]any{"duration_seconds": 2.5}}}
		m["extensions"] = map[string]any{"x_v": map[string]any{"timeout_seconds": 0.5}}
	})
	var got []string
	for _, d := range lintAll(msg) {
		if d.Rule == aop2.UpstreamRefuses.ID && strings.Contains(d.Message, "wanted an integer") {
			got = append(got, d.Pointer)
		}
	}
	sort.Strings(got)
	want := []string{"/execution_policy/retry_backoff_seconds/1", "/execution_policy/timeout_seconds", "/phases/0/a~1b~0c/interval_seconds", "/phases/1/0/duration_seconds"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fractional numbers reported at %q, want %q", got, want)
	}
}
