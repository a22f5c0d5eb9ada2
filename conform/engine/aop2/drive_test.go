package aop2

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	_ "github.com/aopkit/aopkit/conform/checks" // the checks the scenarios name (the engine does not link them)
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/mockagent"

	"github.com/aopkit/aopkit/conform/engine/enginetest"
)

// TestShippedScenarios plays every aop2 scenario aopconform ships
// (fixtures/scenarios/aop2) against the correct mockagent through Drive's code
// path on virtual time: the engine completes each task, or stops it where the
// scenario cancels it, and re-dispatches where the scenario drives it into a
// fallback or a crash. The transcripts are the reference transcripts
// fixtures/reference/aop2/correct-<scenario>.jsonl (lint clean:
// conform/engine/lintgolden).
func TestShippedScenarios(t *testing.T) {
	for _, sc := range enginetest.Builtin(t, Protocol) {
		t.Run(sc.ID, func(t *testing.T) {
			t.Parallel()
			r := play(t, sc, "", "", nil)
			want := map[string]string{"aop2-cancel-sigterm": "ABORTED", "aop2-orchestrator-gone": "ABORTED"}[sc.ID]
			if want == "" {
				want = "COMPLETED"
			}
			if r.res.State != want {
				t.Errorf("state %s, want %s (codes %v, attempts %v)", r.res.State, want, r.res.CodeList(), attemptModels(r))
			}
			if len(r.res.Violations) > 0 {
				t.Errorf("the correct agent broke rules: %+v", r.res.Violations)
			}
			wantAttempts := map[string][]string{
				// The scenario expires the timeout of attempt 1: the engine falls back
				// to the TIMEOUT alternative.
				"aop2-fallback": {codex + ":E_TIMEOUT", gemini + ":SUCCESS"},
				// The executor's host dies (SIGKILL): the engine retries (max_retries 1).
				"aop2-stale-recovery": {codex + ":E_PROCESS_CRASH", codex + ":SUCCESS"},
			}[sc.ID]
			if wantAttempts != nil && !reflect.DeepEqual(attemptModels(r), wantAttempts) {
				t.Errorf("attempts %v, want %v", attemptModels(r), wantAttempts)
			}
			golden(t, "correct-"+strings.TrimPrefix(sc.ID, "aop2-"), r)
		})
	}
}

// TestDriveRefusesUnusableScenarios: a scenario whose TASK the engine rejects
// before dispatch is a harness error, never a run
// that judges the agent on nothing.
func TestDriveRefusesUnusableScenarios(t *testing.T) {
	for name, sc := range map[string]*conform.Scenario{
		// No aop_version: neither v2 nor a v1 prompt (§1.3), rejected before
		// dispatch. (A v2 TASK failing the schema is dispatched as a v1 prompt.)
		"invalid task": scenarioOf("invalid-task", []byte(`{"message_type": "TASK"}`), nil),
	} {
		t.Run(name, func(t *testing.T) {
			scratch := t.TempDir()
			var err error
			synctest.Test(t, func(t *testing.T) {
				agent, _ := mockagent.Lookup(Protocol)
				h := harness.New(context.Background(), harness.Config{Scenario: sc, Launcher: agentio.InProcess{Agent: agent}, Command: []string{"mockagent"}, Scratch: scratch})
				err = h.End(Drive(h))
				if n := len(h.Session().Attempts); n != 0 {
					t.Errorf("%d attempts launched", n)
				}
			})
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
		})
	}
}

// TestDelegationAccessGuard: a sub-TASK gets no wider access than its parent's
// effective access of §11.2 (the most restrictive network, the intersection of
// filesystem capability and paths): wider ones are rejected with
// E_PERMISSION_DENIED, narrower ones accepted.
func TestDelegationAccessGuard(t *testing.T) {
	sub := func(id string, access string) string {
		return `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"TASK",` +
			`"session":{"session_id":"AOP-SESSION-2026-11-22-001","created_at":"2000-01-01T00:00:00Z","orchestrator":"x","origin":"AGENT"},` +
			`"target":{"agent_name":"x","role":"EXECUTOR","provider":"CODEX","model":"m"},` +
			`"task":{"task_id":"` + id + `","parent_task_id":"TASK-001","objective":"o","category":"ANALYSIS","complexity":"LOW","environment":{"workspace_root":"/w"},"access":` + access + `}}`
	}
	lines := []string{
		sub("S-NET", `{"network":"FULL"}`),
		sub("S-FS", `{"filesystem":{"write_paths":["/etc"]}}`),
		sub("S-OK", `{"network":"NONE","filesystem":{"read_paths":["/w/src"],"write_paths":["/w/out"]}}`),
	}
	agent := &mockagent.Agent{Protocol: Protocol, Run: func(ctx context.Context, env mockagent.Env, _ string) int {
		go func() { buf := make([]byte, 1<<16); env.Stdin.Read(buf) }()
		for _, l := range lines {
			fmt.Fprintln(env.Stdout, l)
		}
		<-ctx.Done()
		return 0
	}}
	task := taskWith(t, map[string]any{
		"task/constraints/delegation_allowed": true,
		"target/capabilities":                 map[string]any{"network_access": "FULL", "file_system_access": true},
		"task/access":                         map[string]any{"network": "RESTRICTED", "filesystem": map[string]any{"read_paths": []any{"/w"}, "write_paths": []any{"/w/out"}}},
		"guard_rails/timeout_seconds":         1,
	})
	r := playAgent(t, scenarioOf("access-guard", task, nil), agent, "", "", nil)
	if r.res.Network != "RESTRICTED" || !reflect.DeepEqual(r.res.Filesystem.Write, []string{"/w/out"}) {
		t.Errorf("effective access: network %q, filesystem %+v", r.res.Network, r.res.Filesystem)
	}
	got := map[string]string{}
	for _, d := range r.res.Delegations {
		if _, seen := got[d.TaskID]; seen {
			continue // sent again by the run of S-OK (the same agent), rejected as a duplicate
		}
		got[d.TaskID] = d.Code
		if d.Accepted {
			got[d.TaskID] = "accepted"
		}
	}
	want := map[string]string{"S-NET": "E_PERMISSION_DENIED", "S-FS": "E_PERMISSION_DENIED", "S-OK": "accepted"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("delegations %v, want %v", got, want)
	}
}

// TestSubTasksDispatched: every accepted sub-task is dispatched after the
// scenario's task, in its own executor run judged on its own RESPONSE; sub-tasks
// a sub-task sends pass the same guard (depth from the session's graph, the
// sending sub-task's delegation_allowed); rejected ones are never dispatched.
// The executor is the correct mockagent behind a wrapper that sends, per task
// it is given, the sub-TASKs of the plan below (B answers with no RESPONSE).
func TestSubTasksDispatched(t *testing.T) {
	sub := func(id, parent string, allowed bool) string {
		return `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"TASK",` +
			`"session":{"session_id":"AOP-SESSION-2026-11-22-001","created_at":"2000-01-01T00:00:00Z","orchestrator":"x","origin":"AGENT"},` +
			`"target":{"agent_name":"x","role":"EXECUTOR","provider":"CODEX","model":"m"},` +
			`"task":{"task_id":"` + id + `","parent_task_id":"` + parent + `","objective":"o","category":"ANALYSIS","complexity":"LOW",` +
			`"environment":{"workspace_root":"/w"},"constraints":{"delegation_allowed":` + fmt.Sprint(allowed) + `}}}`
	}
	plan := map[string][]string{
		"TASK-001":     {sub("A", "TASK-001", true), sub("B", "TASK-001", false)},
		"A":            {sub("A.1", "A", true)},
		"B":            {sub("B.1", "B", true)}, // B may not delegate
		"A.1":          {sub("A.1.1", "A.1", true)},
		"A.1.1":        {sub("A.1.1.1", "A.1.1", true)}, // depth 4
		"A.1.1.1":      nil,
		"B.1":          nil,
		"(unexpected)": nil,
	}
	correct, _ := mockagent.Lookup(Protocol)
	agent := &mockagent.Agent{Protocol: Protocol, Run: func(ctx context.Context, env mockagent.Env, fault string) int {
		br := bufio.NewReader(env.Stdin)
		line, _ := br.ReadString('\n')
		var task struct {
			Task struct {
				TaskID string `json:"task_id"`
			} `json:"task"`
		}
		json.Unmarshal([]byte(line), &task)
		for _, l := range plan[task.Task.TaskID] {
			fmt.Fprintln(env.Stdout, l)
		}
		if task.Task.TaskID == "B" {
			return 0 // no RESPONSE
		}
		env.Stdin = io.MultiReader(strings.NewReader(line), br)
		return correct.Run(ctx, env, fault)
	}}
	task := taskWith(t, map[string]any{"task/constraints/delegation_allowed": true})
	r := playAgent(t, scenarioOf("sub-tasks", task, nil), agent, "", "", nil)
	if r.res.State != "COMPLETED" {
		t.Errorf("state %s, codes %v", r.res.State, r.res.CodeList())
	}
	type node struct {
		Depth             int
		State, Code, Sig  string
		Dispatched, Valid bool
	}
	got := map[string]node{}
	for _, d := range r.res.Delegations {
		got[d.TaskID] = node{d.Depth, d.State, d.Code, d.FinalSignal, d.Run > 0, d.Accepted}
	}
	want := map[string]node{
		"A":       {1, "COMPLETED", "", "SUCCESS", true, true},
		"B":       {1, "FAILED", "E_MALFORMED_RESPONSE", "", true, true},
		"A.1":     {2, "COMPLETED", "", "SUCCESS", true, true},
		"B.1":     {0, "SKIPPED", "E_PERMISSION_DENIED", "", false, false},
		"A.1.1":   {3, "COMPLETED", "", "SUCCESS", true, true},
		"A.1.1.1": {4, "SKIPPED", "E_MAX_DEPTH_EXCEEDED", "", false, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("delegations\n got %+v\nwant %+v", got, want)
	}
	// One run for the scenario's task, one per dispatched sub-task; each sub-task
	// run got its own sub-TASK.
	var inputs []string
	for _, a := range r.sess.Attempts {
		var m struct {
			Task struct {
				TaskID string `json:"task_id"`
			} `json:"task"`
		}
		json.Unmarshal(a.Input, &m)
		inputs = append(inputs, m.Task.TaskID)
	}
	if want := []string{"TASK-001", "A", "B", "A.1", "A.1.1"}; !reflect.DeepEqual(inputs, want) {
		t.Errorf("runs dispatched %v, want %v", inputs, want)
	}
	if len(r.res.Attempts) != 1 {
		t.Errorf("the scenario's task has %d attempts; sub-task runs are no attempts of it", len(r.res.Attempts))
	}
}
