package aof_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/mockagent"
	mockaof "github.com/aopkit/aopkit/mockagent/aof"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in fixtures/reference/aof")

const (
	taskID   = "TASK-2026-11-22-001"
	parentID = "TASK-2026-11-22-000"
	agentID  = "swe-backend"
)

var start = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

type scenario struct {
	name       string
	fault      string
	meta       map[string]any
	parent     bool   // create a parent task (the agent's task is a delegated child)
	handoff    string // write inputs/handoff.json addressed to this agent before dispatch
	noCriteria bool   // ... without acceptance criteria
	// expectations
	status   string   // final status of the agent's task
	exit     int      // agent exit code (-1: stopped by a signal)
	events   []string // event "type[:reason]" that must appear, in this order
	absent   []string // event "type[:reason]" that must not appear
	runState string   // run.json status at the end
	check    func(t *testing.T, s *aof.Session)
}

var scenarios = []scenario{
	{name: "correct", status: aof.Review, runState: "running",
		events: []string{"lease.acquired", "protocol.message.received", "task.completed", "session.ended", "task.transitioned:completion_done"},
		absent: []string{"protocol.message.rejected", "completion.warning"}},
	{name: "correct-no-review", meta: map[string]any{"reviewRequired": false}, status: aof.Done, runState: "running",
		events: []string{"task.completed", "session.ended", "task.transitioned:completion_done", "task.transitioned:completion_done"}},
	{name: "delegation", meta: map[string]any{"delegateTo": "swe-qa"}, status: aof.Review, runState: "running",
		events: []string{"delegation.requested", "task.completed", "task.transitioned:completion_done"},
		check: func(t *testing.T, s *aof.Session) {
			child, err := s.Store.Get("TASK-2026-11-22-501")
			if err != nil {
				t.Fatal(err)
			}
			if child.DelegationDepth() != 1 || child.Metadata["parentTaskId"] != taskID {
				t.Errorf("child metadata = %v, want delegationDepth 1, parentTaskId %s", child.Metadata, taskID)
			}
			dir := s.Store.TaskDir(child.Status, child.ID)
			var h aof.Handoff
			data, err := os.ReadFile(filepath.Join(dir, "inputs", "handoff.json"))
			if err != nil || json.Unmarshal(data, &h) != nil || h.ParentTaskID != taskID || h.ToAgent != "swe-qa" {
				t.Errorf("inputs/handoff.json = %s (%v)", data, err)
			}
			md, err := os.ReadFile(filepath.Join(dir, "inputs", "handoff.md"))
			if err != nil || !bytes.Contains(md, []byte("## Acceptance Criteria\n\n- All tests pass")) {
				t.Errorf("inputs/handoff.md = %s (%v)", md, err)
			}
		}},
	{name: "child-does-not-delegate", parent: true, meta: map[string]any{"delegationDepth": 1, "parentTaskId": parentID, "delegateTo": "swe-qa"},
		status: aof.Review, runState: "running", absent: []string{"delegation.requested", "delegation.rejected"}},
	{name: "child-accepts-handoff", parent: true, handoff: "swe-backend", meta: map[string]any{"delegationDepth": 1, "parentTaskId": parentID},
		status: aof.Review, runState: "running",
		events: []string{"protocol.message.received", "delegation.accepted", "task.completed", "task.transitioned:completion_done"}},
	{name: "child-rejects-insufficient-handoff", parent: true, handoff: "swe-backend", noCriteria: true, meta: map[string]any{"delegationDepth": 1, "parentTaskId": parentID},
		status: aof.Blocked, runState: "running",
		events: []string{"task.transitioned:Insufficient context: the handoff has no acceptance criteria", "delegation.rejected:Insufficient context: the handoff has no acceptance criteria"},
		absent: []string{"task.completed"}},
	{name: "ignore-handoff", fault: "ignore-handoff", parent: true, handoff: "swe-backend", meta: map[string]any{"delegationDepth": 1, "parentTaskId": parentID},
		status: aof.Review, runState: "running", absent: []string{"delegation.accepted", "delegation.rejected"}},
	{name: "nested-delegation", fault: "nested-delegation", parent: true, meta: map[string]any{"delegationDepth": 1, "parentTaskId": parentID},
		status: aof.Review, runState: "running",
		events: []string{"protocol.message.received", "delegation.rejected:nested_delegation", "task.completed"},
		absent: []string{"delegation.requested"},
		check: func(t *testing.T, s *aof.Session) {
			child, err := s.Store.Get("TASK-2026-11-22-501")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(s.Store.TaskDir(child.Status, child.ID), "inputs", "handoff.json")); err == nil {
				t.Error("handoff.json written for a refused nested delegation")
			}
		}},
	{name: "hang", fault: "hang", status: aof.Ready, exit: -1, runState: "expired",
		events: []string{"task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed", "session.ended"}},
	{name: "stop-heartbeats", fault: "stop-heartbeats", status: aof.Ready, exit: -1, runState: "expired",
		events: []string{"task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed"}},
	{name: "late-heartbeats", fault: "late-heartbeats", status: aof.Ready, exit: -1, runState: "expired",
		events: []string{"task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed"}},
	{name: "exceed-timeout", fault: "exceed-timeout", status: aof.Ready, exit: -1, runState: "expired",
		events: []string{"task.transitioned:stale_heartbeat_reclaim"}, absent: []string{"task.completed", "session.ended"},
		check: func(t *testing.T, s *aof.Session) {
			if !hasHarnessEvent(s, "timeout") {
				t.Error("no timeout event in the transcript")
			}
		}},
	{name: "crash-mid-task", fault: "crash-mid-task", status: aof.Ready, exit: 2, runState: "expired",
		events: []string{"task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"session.ended"}},
	{name: "crash-after-partial-report", fault: "crash-after-partial-report", status: aof.Review, exit: 2, runState: "running",
		events: []string{"task.completed", "task.transitioned:stale_heartbeat_partial"},
		absent: []string{"session.ended", "run.expired"}},
	{name: "no-completion-report", fault: "no-completion-report", status: aof.Ready, runState: "expired",
		events: []string{"session.ended", "task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed"}},
	{name: "malformed-json", fault: "malformed-json", status: aof.Review, runState: "running",
		events: []string{"protocol.message.rejected:invalid_json", "task.completed", "task.transitioned:completion_done"}},
	{name: "empty-report", fault: "empty-report", status: aof.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope", "session.ended", "task.transitioned:stale_heartbeat_reclaim"},
		absent: []string{"task.completed"}},
	{name: "oversize-payload", fault: "oversize-payload", status: aof.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope", "task.transitioned:stale_heartbeat_reclaim"},
		absent: []string{"task.completed"}},
	{name: "bad-timestamps", fault: "bad-timestamps", status: aof.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope", "task.transitioned:stale_heartbeat_reclaim"},
		absent: []string{"protocol.message.received", "task.completed"}},
	{name: "invalid-transition", fault: "invalid-transition", status: aof.Review, runState: "running",
		events: []string{"task.transition.rejected:invalid_transition", "task.completed", "task.transitioned:completion_done"},
		check: func(t *testing.T, s *aof.Session) {
			task, _ := s.Store.Get(taskID)
			if !strings.Contains(task.Body, "Progress: Step 2/3 done | Requested status: done (invalid transition from in-progress)") {
				t.Errorf("work log missing the refused status; body:\n%s", task.Body)
			}
		}},
	{name: "stdout-garbage", fault: "stdout-garbage", status: aof.Review, runState: "running",
		events: []string{"task.completed"}, absent: []string{"protocol.message.rejected"}},
	{name: "taskid-mismatch", fault: "taskid-mismatch", status: aof.Review, runState: "running",
		events: []string{"protocol.message.rejected:taskId_mismatch", "task.completed"}},
	{name: "unknown-type", fault: "unknown-type", status: aof.Review, runState: "running",
		events: []string{"protocol.message.unknown", "task.completed"}},
	{name: "wrong-version", fault: "wrong-version", status: aof.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope", "task.transitioned:stale_heartbeat_reclaim"},
		absent: []string{"protocol.message.received"}},
	{name: "duplicate-completion", fault: "duplicate-completion", status: aof.Review, runState: "running",
		events: []string{"task.completed", "protocol.message.received", "session.ended", "task.transitioned:completion_done"},
		check: func(t *testing.T, s *aof.Session) {
			n := 0
			for _, e := range s.Store.Events.All() {
				if e.Type == "task.completed" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("task.completed logged %d times, want 1 (idempotent)", n)
			}
			if last := s.Outcomes[len(s.Outcomes)-1]; last.Reason != "duplicate" {
				t.Errorf("second completion: %+v, want duplicate", last)
			}
		}},
	{name: "unauthorized-agent", fault: "unauthorized-agent", status: aof.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:unauthorized_agent", "task.transitioned:stale_heartbeat_reclaim"}},
	{name: "tests-overflow", fault: "tests-overflow", status: aof.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope"}, absent: []string{"task.completed"}},
}

func hasHarnessEvent(s *aof.Session, ev string) bool {
	for _, r := range s.Rec.Records() {
		if r.Event == ev {
			return true
		}
	}
	return false
}

func newSession(t *testing.T, sc scenario, fake clock.Clock, w *bytes.Buffer) *aof.Session {
	t.Helper()
	cfg := aof.Config{Scratch: t.TempDir(), Scenario: "aof/" + sc.name, TaskID: taskID, AgentID: agentID,
		Title: "Implement the users API", TTL: 5 * time.Minute, Metadata: sc.meta}
	if sc.parent {
		cfg.Tasks = []*aof.Task{{ID: parentID, Title: "Parent", Status: aof.InProgress, Metadata: map[string]any{"delegationDepth": int64(0)}, Body: "# Parent\n"}}
	}
	if sc.handoff != "" {
		cfg.Handoff = &aof.Handoff{TaskID: taskID, ParentTaskID: parentID, FromAgent: "swe-lead", ToAgent: sc.handoff,
			AcceptanceCriteria: []string{"All tests pass"}, ExpectedOutputs: []string{}, ContextRefs: []string{}, Constraints: []string{},
			DueBy: "2026-11-23T10:00:00.000Z"}
	}
	if sc.noCriteria {
		cfg.Handoff.AcceptanceCriteria = []string{}
	}
	s, err := aof.NewSession(fake, cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScenarios(t *testing.T) {
	agent, err := mockagent.Lookup("aof")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, sc := range scenarios {
		covered[sc.fault] = true
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			fake := clock.NewFake(start)
			var transcript bytes.Buffer
			s := newSession(t, sc, fake, &transcript)
			exit := s.Simulate(context.Background(), agent, sc.fault, fake, aof.Options{})
			if exit.Code != sc.exit {
				t.Errorf("exit = %+v, want code %d", exit, sc.exit)
			}
			task, err := s.Store.Get(taskID)
			if err != nil {
				t.Fatal(err)
			}
			if task.Status != sc.status {
				t.Errorf("final status = %s, want %s\n%s", task.Status, sc.status, s.Summary())
			}
			if _, err := os.Stat(s.Store.TaskPath(task.Status, taskID)); err != nil {
				t.Errorf("task file not in tasks/%s/: %v", task.Status, err)
			}
			if run, err := s.Store.ReadRun(taskID); err != nil || run.Status != sc.runState {
				t.Errorf("run.json = %+v (%v), want status %s", run, err, sc.runState)
			}
			types := s.Store.Events.Types()
			if !inOrder(types, sc.events) {
				t.Errorf("events %v\ndo not contain, in order, %v", types, sc.events)
			}
			for _, a := range sc.absent {
				for _, ty := range types {
					if ty == a || strings.HasPrefix(ty, a+":") {
						t.Errorf("event %s must not appear: %v", a, types)
					}
				}
			}
			if sc.check != nil {
				sc.check(t, s)
			}
			events := eventsFile(t, s)
			golden(t, sc.name+".jsonl", transcript.Bytes())
			golden(t, sc.name+".events.golden", events)
		})
	}
	for _, f := range mockaof.Faults {
		if !covered[f.Name] {
			t.Errorf("fault %s has no scenario", f.Name)
		}
	}
}

// inOrder reports whether want is a subsequence of got.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

func eventsFile(t *testing.T, s *aof.Session) []byte {
	data, err := os.ReadFile(filepath.Join(s.Store.Dir, "events", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// golden compares got with its golden transcript (go test -update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	enginetest.Golden(t, filepath.Join("..", "..", "..", "fixtures", "reference", "aof", name), got, *update)
}
