package aop2

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/aop2"
)

var update = flag.Bool("update", false, "rewrite the reference transcripts in fixtures/reference/aop2")

const goldenDir = "../../../fixtures/reference/aop2"

// baseTask is the scenarios' TASK: a 20 s job writing one file, heartbeats every
// 4 s, guard_rails timeout 45 s over execution_policy 60 s.
const baseTask = `{
  "aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "TASK",
  "session": {"session_id": "AOP-SESSION-2026-11-22-001", "created_at": "${NOW}", "orchestrator": "aopkit", "origin": "CLI"},
  "target": {"agent_name": "mockagent", "role": "EXECUTOR", "provider": "CODEX", "model": "gpt-5.3-codex"},
  "task": {
    "task_id": "TASK-001", "parent_task_id": null, "attempt": 1,
    "objective": "Write the greeting file.", "category": "CODE_GENERATION", "complexity": "LOW", "priority": "NORMAL",
    "environment": {"workspace_root": "/workspace"},
    "expected_outputs": [{"type": "FILE", "path": "src/greeting.txt", "description": "The greeting.",
      "rollback_snapshot": {"enabled": true, "snapshot_path": ".aop_snapshots/greeting.txt.before", "snapshot_strategy": "COPY"}}],
    "constraints": {"delegation_allowed": false},
    "budgets": {"max_cost_usd": 0.5},
    "extensions": {"x_mockagent": {"work_seconds": 20}}
  },
  "execution_policy": {
    "timeout_seconds": 60, "max_retries": 0, "retry_backoff_seconds": [5], "auto_terminate_on_timeout": true,
    "on_failure": "REPORT_AND_CONTINUE",
    "heartbeat": {"enabled": true, "interval_seconds": 4, "max_missed_beats": 3, "on_heartbeat_failure": "ABORT"}
  },
  "guard_rails": {"require_minimal_report": true, "require_final_signal": true, "timeout_seconds": 45}
}`

// taskWith returns baseTask with the values at the given slash paths replaced
// (a nil value deletes the key).
func taskWith(t testing.TB, set map[string]any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(baseTask), &m); err != nil {
		t.Fatal(err)
	}
	for path, v := range set {
		parts := strings.Split(path, "/")
		cur := m
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		if v == nil {
			delete(cur, parts[len(parts)-1])
		} else {
			cur[parts[len(parts)-1]] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// run is one in-process scenario's outcome.
type run struct {
	res        *Result
	scratch    string
	sess       *conform.Session
	transcript []byte
}

// play runs the engine (Play, through the harness) against the in-process
// mockagent with fault, inside a synctest bubble: time is virtual, starts at
// 2000-01-01 and moves only when every goroutine waits, so runs are fast and
// reproducible.
func play(t *testing.T, sc *conform.Scenario, fault, engineFault string, setup func(scratch string)) run {
	t.Helper()
	agent, err := mockagent.Lookup(Protocol)
	if err != nil {
		t.Fatal(err)
	}
	return playAgent(t, sc, agent, fault, engineFault, setup)
}

// playAgent is play with another in-process agent (enginetest.PlayAgent, with
// setup run on the scratch directory before the engine starts).
func playAgent(t *testing.T, sc *conform.Scenario, agent *mockagent.Agent, fault, engineFault string, setup func(scratch string)) run {
	t.Helper()
	var res *Result
	p := enginetest.PlayAgent(t, sc, agent, fault, engineFault, func(h *harness.H) error {
		if setup != nil {
			setup(h.Scratch())
		}
		var err error
		res, err = Play(h)
		return err
	})
	if p.Err != nil {
		t.Fatalf("engine error: %v", p.Err)
	}
	return run{res: res, scratch: p.Scratch, sess: p.Session, transcript: p.Transcript}
}

// scenarioOf is a test scenario around a TASK: a long deadline (virtual time
// costs nothing), the given steps.
func scenarioOf(name string, task []byte, steps []conform.Step) *conform.Scenario {
	return &conform.Scenario{ID: name, Protocol: Protocol, Family: "engine", Deadline: conform.Duration(30 * time.Minute), Task: task, Steps: steps}
}

// runInProcess plays one test scenario.
func runInProcess(t *testing.T, name, fault string, task []byte, setup func(scratch string), steps []conform.Step, engineFault string) run {
	t.Helper()
	return play(t, scenarioOf(name, task, steps), fault, engineFault, setup)
}

// golden compares (or with -update rewrites) fixtures/reference/aop2/<name>.jsonl.
func golden(t *testing.T, name string, r run) {
	t.Helper()
	enginetest.Golden(t, filepath.Join(goldenDir, name+".jsonl"), r.transcript, *update)
}
