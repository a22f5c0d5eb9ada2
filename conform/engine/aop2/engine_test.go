package aop2

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
	mock "github.com/aopkit/aopkit/mockagent/aop2"
)

// scenario is one reference scenario: engine + mock agent, with the engine's
// decisions to assert. Its transcript is kept in fixtures/reference/aop2.
type scenario struct {
	name  string
	fault string // command-line fault of the mock agent
	set   map[string]any
	task  []byte // instead of baseTask + set
	setup func(t *testing.T, scratch string)
	steps []conform.Step // scenario steps
	// engineFault is the engine's own fault (Faults).
	engineFault string
	state       string   // expected final state
	codes       []string // expected codes, in order
	events      []string // expected engine events, in order
	viol        []string // rules the engine must have seen broken
	check       func(t *testing.T, r run)
	// noGolden skips the transcript golden (huge payloads).
	noGolden bool
	// git: the scenario needs git (skipped without it).
	git bool
}

// writeOriginalRepo is writeOriginal in a git work tree (the workspace), the file
// committed.
func writeOriginalRepo(t *testing.T, scratch string) {
	writeOriginal(t, scratch)
	ws := filepath.Join(scratch, "workspace")
	for _, args := range [][]string{{"init", "-q"}, {"add", "src/greeting.txt"}, {"commit", "-q", "-m", "init"}} {
		if _, err := git(ws, nil, nil, args...); err != nil {
			t.Error(err)
		}
	}
}

// gitRollbackNoRepository: outside a git work tree a git strategy is taken as
// COPY, and the transcript says so.
func gitRollbackNoRepository() scenario {
	sc := gitRollback(StrategyGitStash)
	sc.name, sc.git, sc.setup = "rollback-git-stash-no-repository", false, writeOriginal
	sc.check = func(t *testing.T, r run) {
		if got, _ := fileContent(t, r); got != "original\n" {
			t.Errorf("the COPY rollback left %q", got)
		}
		if !strings.Contains(string(r.transcript), `"event":"snapshot-strategy","detail":{"asked":"GIT_STASH"`) {
			t.Error("no snapshot-strategy event for the fallback to COPY")
		}
	}
	return sc
}

// gitRollback is a scenario whose snapshot is taken with a git strategy (§7,
// rollback_git.go): the executor overwrites the committed file and fails, the
// engine restores it with git.
func gitRollback(strategy string) scenario {
	return scenario{name: "rollback-" + strings.ReplaceAll(strings.ToLower(strategy), "_", "-"), git: true, noGolden: true, setup: writeOriginalRepo, set: map[string]any{
		"task/expected_outputs": []any{map[string]any{"type": "FILE", "path": "src/greeting.txt", "description": "The greeting.",
			"rollback_snapshot": map[string]any{"enabled": true, "snapshot_path": ".aop_snapshots/greeting.txt.before", "snapshot_strategy": strategy}}},
		"task/extensions/x_mockagent": byModel(map[string]any{codex: "report-failure"})},
		state: "FAILED", codes: []string{"E_UNKNOWN"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if got, _ := fileContent(t, r); got != "original\n" {
				t.Errorf("the %s rollback left %q", strategy, got)
			}
			if len(r.res.Rollback) != 1 || r.res.Rollback[0].Status != "SUCCESS" {
				t.Errorf("rollback %+v", r.res.Rollback)
			}
			if strings.Contains(string(r.transcript), `"snapshot-strategy"`) {
				t.Error("a git workspace must not fall back to COPY")
			}
			out, err := git(filepath.Join(r.scratch, "workspace"), nil, nil, "status", "--porcelain", "--", "src/greeting.txt")
			if err != nil || len(out) != 0 {
				t.Errorf("git status of the restored file %q (%v), want clean", out, err)
			}
		}}
}

func byModel(m map[string]any) map[string]any {
	return map[string]any{"work_seconds": 20, "faults_by_model": m}
}

const (
	codex  = "gpt-5.3-codex"
	gemini = "gemini-2.5-pro"
	claude = "claude-opus-4-6"
)

func alternatives(triggers ...string) []any {
	models := [][2]string{{"GEMINI", gemini}, {"CLAUDE", claude}}
	var out []any
	for i, tr := range triggers {
		out = append(out, map[string]any{"provider": models[i][0], "model": models[i][1], "fallback_trigger": tr})
	}
	return out
}

func writeOriginal(t *testing.T, scratch string) {
	p := filepath.Join(scratch, "workspace", "src", "greeting.txt")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileContent(t *testing.T, r run) (string, bool) {
	data, err := os.ReadFile(filepath.Join(r.scratch, "workspace", "src", "greeting.txt"))
	if err != nil {
		return "", false
	}
	return string(data), true
}

// crashThenRetry sets a task whose first attempt crashes (mockagent's
// crash-mid-task) and whose policy allows one retry: a fault of the retry is
// then what the engine meets.
var crashThenRetry = map[string]any{
	"execution_policy/max_retries": 1,
	"task/extensions/x_mockagent":  map[string]any{"work_seconds": 20, "faults_by_attempt": map[string]any{"1": mock.FaultCrashMidTask}},
}

// checkCrashThenRetry: the engine saw the crash, then took the retry's RESPONSE.
func checkCrashThenRetry(t *testing.T, r run) {
	t.Helper()
	if got := attemptModels(r); !reflect.DeepEqual(got, []string{codex + ":E_PROCESS_CRASH", codex + ":SUCCESS"}) {
		t.Errorf("attempts %v, want the crash, then the retry's RESPONSE", got)
	}
}

// checkRolledBack: the workspace file the task wrote is back to its original
// content (writeOriginal).
func checkRolledBack(t *testing.T, r run) {
	t.Helper()
	if got, _ := fileContent(t, r); got != "original\n" {
		t.Errorf("rollback left %q", got)
	}
}

func attemptModels(r run) []string {
	var out []string
	for _, a := range r.res.Attempts {
		out = append(out, a.Model+":"+a.Outcome)
	}
	return out
}

func responseModel(t *testing.T, r run) string {
	var resp struct {
		Agent struct{ Model string } `json:"agent"`
	}
	if err := json.Unmarshal(r.res.Response, &resp); err != nil {
		t.Fatalf("accepted RESPONSE: %v", err)
	}
	return resp.Agent.Model
}

var scenarios = []scenario{
	{name: "happy-path", state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if got, ok := fileContent(t, r); !ok || !strings.Contains(got, "mockagent") {
				t.Errorf("the executor's file is missing: %q", got)
			}
			// payload limit and access checks, routing, dispatch, response, summary
			if len(r.res.AuditFiles) != 6 {
				t.Errorf("audit files %v, want 6 records", r.res.AuditFiles)
			}
			for _, f := range append(r.res.AuditFiles, "events.jsonl", "session_final_report.json") {
				if _, err := os.Stat(filepath.Join(r.res.AuditDir, f)); err != nil {
					t.Errorf("audit trail: %v", err)
				}
			}
			if r.res.Cost.TotalUSD != 0.01 || !r.res.Cost.WithinBudget {
				t.Errorf("cost summary %+v", r.res.Cost)
			}
		}},
	// §11: guard_rails.timeout_seconds (45) overrides execution_policy (60).
	{name: "timeout-guard-rails-precedence", fault: mock.FaultExceedTimeout, setup: writeOriginal,
		state: "FAILED", codes: []string{"E_TIMEOUT"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			a := r.res.Attempts[0]
			if d := a.Ended.Sub(a.Started); d != 45*time.Second {
				t.Errorf("the executor ran %s; the guard_rails timeout is 45 s", d)
			}
			if a.Signal != "SIGTERM" {
				t.Errorf("exit signal %q, want SIGTERM (auto_terminate_on_timeout)", a.Signal)
			}
			checkRolledBack(t, r)
		}},
	{name: "timeout-execution-policy", fault: mock.FaultExceedTimeout, set: map[string]any{"guard_rails/timeout_seconds": nil},
		state: "FAILED", codes: []string{"E_TIMEOUT"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if a := r.res.Attempts[0]; a.Ended.Sub(a.Started) != 60*time.Second {
				t.Errorf("the executor ran %s; execution_policy says 60 s", a.Ended.Sub(a.Started))
			}
		}},
	{name: "timeout-no-auto-terminate", fault: mock.FaultExceedTimeout, set: map[string]any{"guard_rails/auto_terminate_on_timeout": false},
		state: "COMPLETED", codes: []string{"E_TIMEOUT"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if r.res.Codes[0].Fatal {
				t.Error("E_TIMEOUT without auto_terminate_on_timeout must not end the attempt")
			}
			if a := r.res.Attempts[0]; a.Ended.Sub(a.Started) != 105*time.Second {
				t.Errorf("the executor ran %s, want 105 s (45 + 60)", a.Ended.Sub(a.Started))
			}
		}},
	{name: "heartbeat-abort", fault: mock.FaultStopHeartbeats, state: "FAILED",
		codes: []string{"E_HEARTBEAT_FAILURE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			// beats at 4 s and 8 s, then silence: the failure is declared just past
			// 3 × 4 s plus the clock tolerance (lint/spec/aop2), counted from 8 s.
			want := 8*time.Second + aop2spec.HeartbeatFailureAfter(4*time.Second, 3, 1) + time.Millisecond
			if a := r.res.Attempts[0]; a.Ended.Sub(a.Started) != want || a.Signal != "SIGTERM" {
				t.Errorf("attempt ended after %s by %q; want %s by SIGTERM", a.Ended.Sub(a.Started), a.Signal, want)
			}
		}},
	{name: "heartbeat-warn", fault: mock.FaultStopHeartbeats,
		set:   map[string]any{"execution_policy/heartbeat/on_heartbeat_failure": "WARN"},
		state: "COMPLETED", codes: []string{"E_HEARTBEAT_FAILURE"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if r.res.Codes[0].Fatal {
				t.Error("WARN must not end the attempt")
			}
		}},
	{name: "heartbeat-continue", fault: mock.FaultStopHeartbeats,
		set:   map[string]any{"execution_policy/heartbeat/on_heartbeat_failure": "CONTINUE"},
		state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"}},
	{name: "heartbeat-hang", fault: mock.FaultHang, state: "FAILED",
		codes: []string{"E_HEARTBEAT_FAILURE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"}},
	// Late beats within the liveness limit are no engine decision (aoplint's
	// AOP2-SEQ-006 judges them from the transcript).
	{name: "heartbeat-late", fault: mock.FaultLateHeartbeats, state: "COMPLETED",
		events: []string{"SESSION_FINAL_REPORT"}},
	{name: "hang-without-heartbeat", fault: mock.FaultHang, set: map[string]any{"execution_policy/heartbeat": nil},
		state: "FAILED", codes: []string{"E_TIMEOUT"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"}},
	{name: "ignore-shutdown", fault: mock.FaultIgnoreShutdown, set: map[string]any{"task/extensions/x_mockagent/work_seconds": 100},
		state: "FAILED", codes: []string{"E_TIMEOUT"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"}},
	{name: "retry-backoff", set: map[string]any{
		"execution_policy/max_retries":           1,
		"task/extensions/x_mockagent":            map[string]any{"work_seconds": 20, "faults_by_attempt": map[string]any{"1": mock.FaultCrashMidTask}},
		"execution_policy/retry_backoff_seconds": []any{5}},
		state: "COMPLETED", codes: []string{"E_PROCESS_CRASH"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			a, b := r.res.Attempts[0], r.res.Attempts[1]
			if gap := b.Started.Sub(a.Ended); gap != 5*time.Second {
				t.Errorf("backoff %s, want retry_backoff_seconds[0] = 5 s", gap)
			}
			if a.Model != codex || b.Model != codex {
				t.Errorf("a retry keeps the model: %v", attemptModels(r))
			}
		}},
	{name: "fallback-on-timeout", set: map[string]any{
		"execution_policy/alternative_models": alternatives("TIMEOUT", "ALL_ERRORS"),
		"task/extensions/x_mockagent":         byModel(map[string]any{codex: mock.FaultExceedTimeout})},
		state: "COMPLETED", codes: []string{"E_TIMEOUT"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if got := attemptModels(r); !reflect.DeepEqual(got, []string{codex + ":E_TIMEOUT", gemini + ":SUCCESS"}) {
				t.Errorf("attempts %v", got)
			}
			if m := responseModel(t, r); m != gemini {
				t.Errorf("the RESPONSE reports %s, want %s", m, gemini)
			}
		}},
	{name: "fallback-first-error-then-all-errors", set: map[string]any{
		"execution_policy/alternative_models": alternatives("FIRST_ERROR", "ALL_ERRORS"),
		"task/extensions/x_mockagent":         byModel(map[string]any{codex: "report-failure", gemini: "report-failure", claude: "report-failure"})},
		setup: writeOriginal, state: "FAILED",
		codes:  []string{"E_UNKNOWN", "E_UNKNOWN", "E_UNKNOWN", "E_ALL_MODELS_EXHAUSTED"},
		events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if got := attemptModels(r); !reflect.DeepEqual(got, []string{codex + ":E_UNKNOWN", gemini + ":E_UNKNOWN", claude + ":E_UNKNOWN"}) {
				t.Errorf("attempts %v", got)
			}
			checkRolledBack(t, r)
			if r.res.Cost.TotalUSD != 0.03 {
				t.Errorf("total cost %v, want 0.03", r.res.Cost.TotalUSD)
			}
		}},
	{name: "fallback-critical-error", set: map[string]any{
		"execution_policy/alternative_models": alternatives("CRITICAL_ERROR"),
		"task/extensions/x_mockagent":         byModel(map[string]any{codex: mock.FaultCrashMidTask})},
		state: "COMPLETED", codes: []string{"E_PROCESS_CRASH"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if m := responseModel(t, r); m != gemini {
				t.Errorf("the RESPONSE reports %s, want %s", m, gemini)
			}
		}},
	{name: "fallback-cost-limit", set: map[string]any{
		"execution_policy/alternative_models": alternatives("COST_LIMIT_EXCEEDED"),
		"task/extensions/x_mockagent":         byModel(map[string]any{codex: mock.FaultOverBudget})},
		state: "COMPLETED", codes: []string{"E_COST_LIMIT_EXCEEDED"}, events: []string{"SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-SEQ-013"},
		check: func(t *testing.T, r run) {
			if r.res.Cost.TotalUSD != 1.01 || r.res.Cost.WithinBudget {
				t.Errorf("cost summary %+v, want 1.01 over budget", r.res.Cost)
			}
		}},
	// A TIMEOUT alternative does not take over after a crash.
	{name: "fallback-trigger-not-matching", set: map[string]any{
		"execution_policy/alternative_models": alternatives("TIMEOUT"),
		"task/extensions/x_mockagent":         byModel(map[string]any{codex: mock.FaultCrashMidTask})},
		state: "FAILED", codes: []string{"E_PROCESS_CRASH", "E_ALL_MODELS_EXHAUSTED"},
		events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if len(r.res.Attempts) != 1 {
				t.Errorf("attempts %v, want only the target", attemptModels(r))
			}
		}},
	{name: "abort-on-first-critical-error", set: map[string]any{
		"guard_rails/abort_on_first_critical_error": true,
		"execution_policy/max_retries":              2,
		"execution_policy/alternative_models":       alternatives("ALL_ERRORS"),
		"task/extensions/x_mockagent":               byModel(map[string]any{codex: mock.FaultCrashMidTask})},
		setup: writeOriginal, state: "ABORTED", codes: []string{"E_PROCESS_CRASH", "E_PROCESS_CRASH"},
		events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if len(r.res.Attempts) != 1 {
				t.Errorf("attempts %v, want no retry and no fallback", attemptModels(r))
			}
			if r.res.Rollback[0].Status != "SUCCESS" {
				t.Errorf("rollback %+v", r.res.Rollback)
			}
			checkRolledBack(t, r)
		}},
	{name: "on-failure-abort-session", set: map[string]any{
		"execution_policy/on_failure": "ABORT_SESSION",
		"task/extensions/x_mockagent": byModel(map[string]any{codex: "report-failure"})},
		state: "ABORTED", codes: []string{"E_UNKNOWN"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if _, ok := fileContent(t, r); ok {
				t.Error("the file the executor created must be removed by the rollback")
			}
		}},
	gitRollback(StrategyGitStash),
	gitRollback(StrategyDiff),
	gitRollbackNoRepository(),
	{name: "rollback-failed", fault: mock.FaultClobberSnapshot, setup: writeOriginal,
		state: "FAILED", codes: []string{"E_UNKNOWN", "E_ROLLBACK_FAILED"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if len(r.res.Rollback) != 1 || r.res.Rollback[0].Status != "FAILED" {
				t.Errorf("rollback %+v", r.res.Rollback)
			}
		}},
	{name: "priority-escalation", set: map[string]any{
		"execution_policy/max_retries": 1,
		"task/extensions/x_mockagent":  map[string]any{"work_seconds": 20, "faults_by_attempt": map[string]any{"1": "report-failure"}}},
		steps: []conform.Step{{Attempt: 1, After: conform.Duration(10 * time.Second), Do: "escalate", Reason: "user escalated",
			Message: []byte(`{"new_priority": "CRITICAL", "escalated_by": "user@example.com"}`)}},
		state: "COMPLETED", codes: []string{"E_UNKNOWN"}, events: []string{"PRIORITY_ESCALATION", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `"priority":"CRITICAL","task_id":"TASK-001"`) {
				t.Error("the retry's TASK must carry the escalated priority")
			}
		}},
	{name: "payload-soft-limit", set: map[string]any{"task/objective": strings.Repeat("o", 45000)},
		state: "COMPLETED", codes: []string{"E_PAYLOAD_SIZE_WARNING"}, events: []string{"SESSION_FINAL_REPORT"}, noGolden: true},
	{name: "payload-hard-limit", set: map[string]any{"task/objective": strings.Repeat("o", 210*1024)},
		state: "REJECTED", codes: []string{"E_PAYLOAD_SIZE_WARNING", "E_CONTEXT_OVERFLOW"}, events: []string{"SESSION_FINAL_REPORT"}, noGolden: true,
		check: func(t *testing.T, r run) {
			if len(r.res.Attempts) != 0 {
				t.Error("a TASK over 200KB must not be dispatched")
			}
		}},
	{name: "payload-too-many-inputs", set: map[string]any{"task/inputs": manyInputs(101)},
		state: "REJECTED", codes: []string{"E_CONTEXT_OVERFLOW"}, events: []string{"SESSION_FINAL_REPORT"}},
	// §1.3: the TASK fails the v2 schema → VERSION_FALLBACK, then the v1 prompt
	// is dispatched and the executor's v1 output (its status line) judged.
	{name: "version-fallback", set: map[string]any{"session": nil},
		state: "COMPLETED", codes: []string{"E_SCHEMA_VALIDATION"}, events: []string{"VERSION_FALLBACK", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if r.res.InputVersion != "V1" || r.res.FinalSignal != "SUCCESS" {
				t.Errorf("input version %s, final signal %s", r.res.InputVersion, r.res.FinalSignal)
			}
			prompt, err := os.ReadFile(filepath.Join(r.res.AuditDir, "v1_prompt.md"))
			if err != nil {
				t.Fatalf("v1 prompt: %v", err)
			}
			if !aop2spec.LooksLikeV1Prompt(string(prompt)) || !strings.Contains(string(prompt), "Write the greeting file.") {
				t.Errorf("v1 prompt %q", prompt)
			}
			// The prompt went out as the executor's stdin (text, then EOF), not as a TASK line.
			var sent, closed bool
			for _, rec := range r.sess.Records {
				if rec.From == "orchestrator" && rec.Stream == "stdin" {
					sent = rec.Text != nil && *rec.Text == strings.TrimSuffix(string(prompt), "\n") && rec.Msg == nil
				}
				closed = closed || rec.Event == "close-stdin"
			}
			if !sent || !closed {
				t.Errorf("v1 prompt sent %v, stdin closed %v", sent, closed)
			}
			if len(r.res.Attempts) != 1 || r.res.Attempts[0].Outcome != outSuccess {
				t.Errorf("attempts %+v", r.res.Attempts)
			}
		}},
	{name: "version-fallback-v1-failure", set: map[string]any{"session": nil,
		"task/extensions/x_mockagent": map[string]any{"work_seconds": 5, "faults_by_attempt": map[string]any{"1": "report-failure"}}},
		state: "FAILED", codes: []string{"E_SCHEMA_VALIDATION", "E_UNKNOWN"}, events: []string{"VERSION_FALLBACK", "SESSION_FINAL_REPORT"}, noGolden: true},
	{name: "version-fallback-v1-no-status", fault: mock.FaultNoCompletionReport, set: map[string]any{"session": nil},
		state: "FAILED", codes: []string{"E_SCHEMA_VALIDATION", "E_MALFORMED_RESPONSE"}, events: []string{"VERSION_FALLBACK", "SESSION_FINAL_REPORT"}, noGolden: true},
	{name: "version-fallback-v1-timeout", fault: mock.FaultExceedTimeout, set: map[string]any{"session": nil},
		state: "FAILED", codes: []string{"E_SCHEMA_VALIDATION", "E_TIMEOUT"}, events: []string{"VERSION_FALLBACK", "SESSION_FINAL_REPORT"}, noGolden: true,
		check: func(t *testing.T, r run) {
			// A v1 executor is silent until its report: its timers start at the end
			// of the 10 s start-up allowance.
			if a := r.res.Attempts[0]; a.Signal != "SIGTERM" || a.Ended.Sub(a.Started) != 55*time.Second {
				t.Errorf("the v1 executor ran %s, ended by %q; want SIGTERM at the 45 s guard_rails timeout after the 10 s start-up allowance", a.Ended.Sub(a.Started), a.Signal)
			}
		}},
	{name: "version-fallback-v1-crash", fault: mock.FaultCrashMidTask, set: map[string]any{"session": nil},
		state: "FAILED", codes: []string{"E_SCHEMA_VALIDATION", "E_PROCESS_CRASH"}, events: []string{"VERSION_FALLBACK", "SESSION_FINAL_REPORT"}, noGolden: true},
	{name: "unstructured-input", task: []byte("please refactor module x"),
		state: "REJECTED", codes: []string{"E_PARSE_FAILURE"}, events: []string{"SESSION_FINAL_REPORT"}},
	{name: "delegation-depth", fault: mock.FaultNestedDelegation, set: map[string]any{"task/constraints/delegation_allowed": true},
		state: "COMPLETED", codes: []string{"E_MAX_DEPTH_EXCEEDED"}, events: []string{"SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-SEQ-011"},
		check: func(t *testing.T, r run) {
			var depths []int
			for _, d := range r.res.Delegations {
				depths = append(depths, d.Depth)
			}
			if !reflect.DeepEqual(depths, []int{1, 2, 3, 4}) || r.res.Delegations[3].Accepted {
				t.Errorf("delegations %+v", r.res.Delegations)
			}
			// Depths 1-3 are dispatched, each in its own run after the task's,
			// and complete on their own RESPONSE; depth 4 is refused, never run.
			for i, d := range r.res.Delegations {
				want := Delegation{TaskID: d.TaskID, Parent: d.Parent, Depth: i + 1, Accepted: true, State: "COMPLETED", Run: i + 2, FinalSignal: "SUCCESS"}
				if i == 3 {
					want = Delegation{TaskID: d.TaskID, Parent: d.Parent, Depth: 4, Code: "E_MAX_DEPTH_EXCEEDED", State: "SKIPPED"}
				}
				if d != want {
					t.Errorf("delegation %d: %+v, want %+v", i, d, want)
				}
			}
			if n := len(r.sess.Attempts); n != 4 {
				t.Errorf("%d runs, want the task's and 3 sub-tasks'", n)
			}
		}},
	{name: "delegation-not-allowed", fault: mock.FaultNestedDelegation,
		state: "COMPLETED", codes: []string{"E_PERMISSION_DENIED", "E_PERMISSION_DENIED", "E_PERMISSION_DENIED", "E_PERMISSION_DENIED"},
		events: []string{"SESSION_FINAL_REPORT"}, viol: []string{"aop2/10/no-delegation"},
		check: func(t *testing.T, r run) {
			for _, d := range r.res.Delegations {
				if d.Accepted || d.Run != 0 || d.State != "SKIPPED" {
					t.Errorf("delegation %+v dispatched or accepted", d)
				}
			}
			if n := len(r.sess.Attempts); n != 1 {
				t.Errorf("%d runs; delegation_allowed false dispatches no sub-task", n)
			}
		}},
	{name: "task-status-in-task", fault: mock.FaultTaskStatusInTask, set: map[string]any{"task/constraints/delegation_allowed": true},
		state: "COMPLETED", codes: []string{"E_SCHEMA_VALIDATION"}, events: []string{"SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-ENVELOPE-003"}},
	{name: "crash-mid-task", fault: mock.FaultCrashMidTask, state: "FAILED", codes: []string{"E_PROCESS_CRASH"},
		events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"}},
	{name: "crash-after-partial-report", fault: mock.FaultCrashAfterPartialReport, state: "FAILED",
		codes: []string{"E_PARSE_FAILURE", "E_PROCESS_CRASH"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"GEN-JSON-001"}},
	{name: "malformed-json", fault: mock.FaultMalformedJSON, state: "FAILED",
		codes: []string{"E_PARSE_FAILURE", "E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"GEN-JSON-001", "AOP2-SEQ-004"}},
	{name: "no-completion-report", fault: mock.FaultNoCompletionReport, state: "FAILED",
		codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-SEQ-004"}},
	{name: "missing-final-signal", fault: mock.FaultMissingFinalSignal, state: "FAILED",
		codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-SEQ-002"}},
	{name: "empty-report", fault: mock.FaultEmptyReport, state: "FAILED",
		codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-SEQ-003"}},
	{name: "wrong-correlation-id", fault: mock.FaultWrongCorrelationID, state: "FAILED",
		codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-SEQ-001"}},
	{name: "wrong-session-id", fault: mock.FaultWrongSessionID, state: "FAILED",
		codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-SEQ-001"}},
	{name: "wrong-model", fault: mock.FaultWrongModel, state: "FAILED",
		codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"aop2/9/fallback-model"}},
	{name: "invalid-transition", fault: mock.FaultInvalidTransition, state: "FAILED",
		codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"aop2/5/final-response"}},
	{name: "over-budget", fault: mock.FaultOverBudget, state: "FAILED",
		codes: []string{"E_COST_LIMIT_EXCEEDED"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-SEQ-013"}},
	{name: "oversize-payload", fault: mock.FaultOversizePayload, state: "FAILED", noGolden: true,
		codes: []string{"E_CONTEXT_OVERFLOW"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol: []string{"AOP2-LIMIT-003"}},
	{name: "duplicate-response", fault: mock.FaultDuplicateResponse, state: "COMPLETED",
		events: []string{"SESSION_FINAL_REPORT"}, viol: []string{"AOP2-SEQ-009"}},
	{name: "progress-flood", fault: mock.FaultProgressFlood, state: "COMPLETED",
		events: []string{"SESSION_FINAL_REPORT"}, viol: []string{"AOP2-SEQ-007"}},
	{name: "bad-timestamps", fault: mock.FaultBadTimestamps, state: "COMPLETED",
		events: []string{"SESSION_FINAL_REPORT"}, viol: []string{"AOP2-TIME-001"}},
	{name: "stdout-garbage", fault: mock.FaultStdoutGarbage, state: "COMPLETED",
		events: []string{"SESSION_FINAL_REPORT"}, viol: []string{"GEN-DETECT-002"}},
	{name: "unknown-message-type", fault: mock.FaultUnknownMessageType, state: "COMPLETED",
		events: []string{"SESSION_FINAL_REPORT"}, viol: []string{"AOP2-ENVELOPE-001"}},
	{name: "bad-extension-key", fault: mock.FaultBadExtensionKey, state: "COMPLETED",
		events: []string{"SESSION_FINAL_REPORT"}, viol: []string{"AOP2-EXT-001"}},

	// The engine's own faults: each changes one decision.
	{name: "engine-fault-no-timeout-kill", fault: mock.FaultExceedTimeout, engineFault: FaultNoTimeoutKill, noGolden: true,
		state: "COMPLETED", codes: []string{"E_TIMEOUT"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if a := r.res.Attempts[0]; a.Signal != "" || a.Ended.Sub(a.Started) != 105*time.Second {
				t.Errorf("the executor ran %s, ended by %q; want 105 s and no SIGTERM (the timeout kill is skipped)", a.Ended.Sub(a.Started), a.Signal)
			}
		}},
	{name: "engine-fault-ignore-missed-heartbeats", fault: mock.FaultStopHeartbeats, engineFault: FaultIgnoreMissedBeats, noGolden: true,
		state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if r.res.HasCode("E_HEARTBEAT_FAILURE") {
				t.Error("the fault must not declare a heartbeat failure")
			}
		}},
	{name: "engine-fault-wrong-fallback-model", engineFault: FaultWrongFallbackModel, noGolden: true, set: map[string]any{
		"execution_policy/alternative_models": alternatives("TIMEOUT"),
		"task/extensions/x_mockagent":         byModel(map[string]any{codex: mock.FaultExceedTimeout})},
		state: "FAILED", codes: []string{"E_TIMEOUT", "E_TIMEOUT", "E_ALL_MODELS_EXHAUSTED"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if got := attemptModels(r); !reflect.DeepEqual(got, []string{codex + ":E_TIMEOUT", codex + ":E_TIMEOUT"}) {
				t.Errorf("attempts %v, want the fallback dispatched under the target's model", got)
			}
		}},
	{name: "engine-fault-skip-version-fallback", engineFault: FaultSkipVersionFallback, noGolden: true, set: map[string]any{"session": nil},
		state: "REJECTED", codes: []string{"E_SCHEMA_VALIDATION"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if len(r.res.Attempts) != 0 {
				t.Errorf("the fault must dispatch nothing: %+v", r.res.Attempts)
			}
		}},
	{name: "engine-fault-no-rollback-event", engineFault: FaultNoRollbackEvent, noGolden: true, setup: writeOriginal, set: map[string]any{
		"task/extensions/x_mockagent": byModel(map[string]any{codex: "report-failure"})},
		state: "FAILED", codes: []string{"E_UNKNOWN"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if got, _ := fileContent(t, r); got != "original\n" {
				t.Errorf("the fault restores the file all the same; got %q", got)
			}
		}},
	{name: "engine-fault-omit-error-codes", fault: mock.FaultExceedTimeout, engineFault: FaultOmitErrorCodes, noGolden: true,
		state: "FAILED", codes: []string{"E_TIMEOUT"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `"errors":[]`) || strings.Contains(string(r.transcript), `"outcome":"E_TIMEOUT"`) {
				t.Error("the fault must emit SESSION_FINAL_REPORT with no error code")
			}
		}},
	{name: "engine-fault-task-status-in-task", engineFault: FaultTaskStatusInTask, noGolden: true,
		state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `\"task_status\":\"PENDING\"`) && !strings.Contains(string(r.transcript), `"task_status":"PENDING"`) {
				t.Error("the dispatched TASK has no task_status")
			}
		}},
	{name: "engine-fault-close-stdin-early", engineFault: FaultCloseStdinEarly, noGolden: true,
		state: "ABORTED", events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if r.res.State == "COMPLETED" {
				t.Error("the executor completed although its stdin was closed after the TASK (EOF means stop)")
			}
		}},
	{name: "engine-fault-strict-version", engineFault: FaultStrictVersion, noGolden: true, set: map[string]any{"aop_version": "2.1.0"},
		state: "COMPLETED", codes: []string{"E_SCHEMA_VALIDATION"}, events: []string{"VERSION_FALLBACK", "SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if r.res.InputVersion != "V1" {
				t.Errorf("input version %s: the fault sends a 2.1.0 TASK to the v1 fallback", r.res.InputVersion)
			}
		}},
	{name: "engine-fault-reject-unknown-fields", engineFault: FaultRejectUnknown, noGolden: true, set: map[string]any{"task/acceptance_criteria": []any{"out.txt exists"}},
		state: "REJECTED", codes: []string{"E_SCHEMA_VALIDATION"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if len(r.res.Attempts) != 0 {
				t.Errorf("the fault must dispatch nothing: %+v", r.res.Attempts)
			}
		}},
	{name: "engine-fault-assume-v2", engineFault: FaultAssumeV2, noGolden: true, set: map[string]any{"aop_version": nil},
		state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if len(r.res.Attempts) != 1 || r.res.InputVersion != "V2" {
				t.Errorf("the fault dispatches a task without aop_version as v2: %+v (%s)", r.res.Attempts, r.res.InputVersion)
			}
		}},
	{name: "engine-fault-no-payload-warning", engineFault: FaultNoPayloadWarning, noGolden: true, set: map[string]any{"task/objective": strings.Repeat("o", 45000)},
		state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"}},
	{name: "engine-fault-ignore-hard-limits", engineFault: FaultIgnoreHardLimits, noGolden: true, set: map[string]any{"task/inputs": manyInputs(101)},
		state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"}},
	{name: "engine-fault-no-retries", engineFault: FaultNoRetries, noGolden: true, set: map[string]any{
		"execution_policy/max_retries":        1,
		"execution_policy/alternative_models": alternatives("ALL_ERRORS"),
		"task/extensions/x_mockagent":         byModel(map[string]any{codex: "report-failure"})},
		state: "COMPLETED", codes: []string{"E_UNKNOWN"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if got := attemptModels(r); !reflect.DeepEqual(got, []string{codex + ":E_UNKNOWN", gemini + ":SUCCESS"}) {
				t.Errorf("attempts %v, want ALL_ERRORS at once (no retry)", got)
			}
		}},
	{name: "engine-fault-no-backoff", engineFault: FaultNoBackoff, noGolden: true, set: map[string]any{
		"execution_policy/max_retries":           1,
		"task/extensions/x_mockagent":            map[string]any{"work_seconds": 20, "faults_by_attempt": map[string]any{"1": mock.FaultCrashMidTask}},
		"execution_policy/retry_backoff_seconds": []any{5}},
		state: "COMPLETED", codes: []string{"E_PROCESS_CRASH"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if gap := r.res.Attempts[1].Started.Sub(r.res.Attempts[0].Ended); gap >= 5*time.Second {
				t.Errorf("backoff %s: the fault retries at once", gap)
			}
		}},
	{name: "engine-fault-skip-rollback", engineFault: FaultSkipRollback, noGolden: true, setup: writeOriginal, set: map[string]any{
		"task/extensions/x_mockagent": byModel(map[string]any{codex: "report-failure"})},
		state: "FAILED", codes: []string{"E_UNKNOWN"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if got, _ := fileContent(t, r); got == "original\n" {
				t.Error("the fault must leave the executor's file in place")
			}
		}},
	// A RESPONSE, then exit 1: the engine takes the RESPONSE; the exit after it
	// is aopconform's aop2/bind/exit-zero.
	{name: "exit-nonzero", fault: mock.FaultExitNonzero, noGolden: true, state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"}},
	// The retry answers, then exits 1 (mockagent's exit-nonzero-on-retry; the
	// first attempt crashes, as in retry-backoff): the engine takes the
	// RESPONSE; the exit after it is aopconform's aop2/recovery/clean-restart.
	{name: "exit-nonzero-on-retry", fault: mock.FaultExitNonzeroOnRetry, noGolden: true, set: crashThenRetry,
		state: "COMPLETED", codes: []string{"E_PROCESS_CRASH"}, events: []string{"SESSION_FINAL_REPORT"},
		check: checkCrashThenRetry},
	// The engine does not hash the outputs: it takes the RESPONSE whose
	// output_artifacts describe the file before its last edit (aopconform's
	// aop2/5/artifacts-honest compares them with the workspace).
	{name: "stale-artifact-hash", fault: mock.FaultStaleArtifactHash, state: "COMPLETED", events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			if len(r.res.Violations) > 0 {
				t.Errorf("violations %+v: the hash is no rule of one message", r.res.Violations)
			}
			arts := responseArtifacts(t, r)
			data, err := os.ReadFile(filepath.Join(r.scratch, "workspace", "src", "greeting.txt"))
			if err != nil || len(arts) != 1 {
				t.Fatalf("artifacts %+v, file: %v", arts, err)
			}
			sum := sha256.Sum256(data)
			if real := "sha256:" + hex.EncodeToString(sum[:]); arts[0].Hash == real || arts[0].SizeBytes == len(data) {
				t.Errorf("reported %s, %d bytes; the file has %s, %d bytes: want the stale hash and size", arts[0].Hash, arts[0].SizeBytes, real, len(data))
			}
		}},
	// The retry (task.attempt 2, after the first attempt's crash) reports
	// timing.retries_attempted 0: the engine takes the RESPONSE (aopconform's
	// aop2/recovery/honest-attempt judges the count).
	{name: "stale-retry-count", fault: mock.FaultStaleRetryCount, set: crashThenRetry,
		state: "COMPLETED", codes: []string{"E_PROCESS_CRASH"}, events: []string{"SESSION_FINAL_REPORT"},
		check: func(t *testing.T, r run) {
			checkCrashThenRetry(t, r)
			if len(r.res.Violations) > 0 {
				t.Errorf("violations %+v: the count is no rule of one message", r.res.Violations)
			}
			var resp struct {
				Timing struct {
					RetriesAttempted *int `json:"retries_attempted"`
				} `json:"timing"`
			}
			if err := json.Unmarshal(r.res.Response, &resp); err != nil || resp.Timing.RetriesAttempted == nil || *resp.Timing.RetriesAttempted != 0 {
				t.Errorf("accepted RESPONSE timing %s (%v), want retries_attempted 0", r.res.Response, err)
			}
		}},
	// completed_at before started_at (AOP2-TIME-002) makes the RESPONSE
	// malformed: the attempt fails and its file is rolled back.
	{name: "swapped-timing", fault: mock.FaultSwappedTiming, setup: writeOriginal,
		state: "FAILED", codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol:  []string{"AOP2-TIME-002"},
		check: checkRolledBack},
	// A RESPONSE with the v1 protocol's aop_version (AOP2-VERSION-002) is no
	// RESPONSE of this contract: the attempt fails and its file is rolled back.
	{name: "v1-version", fault: mock.FaultV1Version, setup: writeOriginal,
		state: "FAILED", codes: []string{"E_MALFORMED_RESPONSE"}, events: []string{"ROLLBACK_INITIATED", "SESSION_FINAL_REPORT"},
		viol:  []string{"AOP2-VERSION-002"},
		check: checkRolledBack},
}

// artifactView is what the tests read of an output artifact.
type artifactView struct {
	Hash      string `json:"hash"`
	SizeBytes int    `json:"size_bytes"`
}

// responseArtifacts is execution_summary.output_artifacts of the accepted RESPONSE.
func responseArtifacts(t *testing.T, r run) []artifactView {
	var resp struct {
		ExecutionSummary struct {
			OutputArtifacts []artifactView `json:"output_artifacts"`
		} `json:"execution_summary"`
	}
	if err := json.Unmarshal(r.res.Response, &resp); err != nil {
		t.Fatalf("accepted RESPONSE: %v", err)
	}
	return resp.ExecutionSummary.OutputArtifacts
}

func manyInputs(n int) []any {
	var out []any
	for i := 0; i < n; i++ {
		out = append(out, map[string]any{"type": "FILE", "path": "in/" + strings.Repeat("x", i%7) + ".txt", "read_only": true})
	}
	return out
}

func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath("git"); sc.git && err != nil {
				t.Skip("git is not installed")
			}
			task := sc.task
			if task == nil {
				task = taskWith(t, sc.set)
			}
			var setup func(string)
			if sc.setup != nil {
				setup = func(s string) { sc.setup(t, s) }
			}
			r := runInProcess(t, sc.name, sc.fault, task, setup, sc.steps, sc.engineFault)
			if r.res.State != sc.state {
				t.Errorf("state %s, want %s (codes %v, attempts %v)", r.res.State, sc.state, r.res.CodeList(), attemptModels(r))
			}
			if got := r.res.CodeList(); !reflect.DeepEqual(nonNil(got), nonNil(sc.codes)) {
				t.Errorf("codes %v, want %v\n%+v", got, sc.codes, r.res.Codes)
			}
			if !reflect.DeepEqual(nonNil(r.res.Events), nonNil(sc.events)) {
				t.Errorf("events %v, want %v", r.res.Events, sc.events)
			}
			for _, v := range sc.viol {
				if !r.res.HasViolation(v) {
					t.Errorf("the engine did not see %s broken; violations %+v", v, r.res.Violations)
				}
			}
			if sc.fault == "" && sc.engineFault == "" && len(sc.viol) == 0 && !strings.Contains(string(task), "faults_by_") && len(r.res.Violations) > 0 {
				t.Errorf("a correct executor broke rules: %+v", r.res.Violations)
			}
			if sc.check != nil {
				sc.check(t, r)
			}
			if !sc.noGolden {
				golden(t, sc.name, r)
			}
		})
	}
}

// TestEveryFaultHasAScenario: each fault of the mock agent is run against the
// engine by some scenario, on the command line or through the task script.
func TestEveryFaultHasAScenario(t *testing.T) {
	used := map[string]bool{}
	for _, sc := range scenarios {
		used[sc.fault] = true
		task := string(sc.task)
		if task == "" {
			task = string(taskWith(t, sc.set))
		}
		for _, f := range mock.Agent.Faults.List() {
			if strings.Contains(task, `"`+f.Name+`"`) {
				used[f.Name] = true
			}
		}
	}
	for _, f := range mock.Agent.Faults.List() {
		if !used[f.Name] {
			t.Errorf("fault %s is never run against the engine", f.Name)
		}
	}
}

// TestEveryEngineFaultHasAScenario: each engine fault is played above.
func TestEveryEngineFaultHasAScenario(t *testing.T) {
	used := map[string]bool{}
	for _, sc := range scenarios {
		used[sc.engineFault] = true
	}
	for _, f := range Faults() {
		if !used[f.Name] {
			t.Errorf("engine fault %s is never played", f.Name)
		}
	}
}

func TestGoldenDeterministic(t *testing.T) {
	a := runInProcess(t, "retry-backoff", "", taskWith(t, scenarios[11].set), nil, nil, "")
	b := runInProcess(t, "retry-backoff", "", taskWith(t, scenarios[11].set), nil, nil, "")
	if string(a.transcript) != string(b.transcript) {
		t.Fatal("two runs of one scenario differ")
	}
}
