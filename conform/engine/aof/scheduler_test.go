package aof_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/conform/harness"
	aofspec "github.com/aopkit/aopkit/lint/spec/aof"
)

// The scheduler mode (`aopconform engine --protocol aof`): the engine leases a
// task waiting in a seeded data directory, and dispatches the child tasks it
// accepts a handoff for.

const (
	schedTask  = "TASK-2026-11-22-002"
	schedChild = "TASK-2026-11-22-502" // mockagent's child of schedTask
	nestedTask = "TASK-2026-11-22-003" // a delegated child (depth 1)
	grandchild = "TASK-2026-11-22-503" // the child nestedTask asks for: refused
)

// seeded is one scheduler-mode run: the tasks written into <scratch>/data before
// the engine starts.
type seeded struct {
	task  string
	tasks []*aof.Task
	// handoff: the inputs/handoff.json of the first task (a delegated child).
	handoff *aof.Handoff
}

func (c seeded) scenario(t *testing.T) *conform.Scenario {
	b, _ := json.Marshal(map[string]any{"dataDir": "data", "taskId": c.task, "heartbeatTtlMs": 1500})
	return &conform.Scenario{ID: "aof-sched", Protocol: "aof", Family: "engine", Deadline: conform.Duration(9250 * time.Millisecond), Task: b}
}

func (c seeded) drive(h *harness.H) error {
	st, err := aof.NewStore(filepath.Join(h.Scratch(), "data"), clock.Real{})
	if err != nil {
		return err
	}
	for _, task := range c.tasks {
		if err := st.Create(task); err != nil {
			return err
		}
	}
	if c.handoff != nil {
		data, _ := json.Marshal(c.handoff)
		dir := filepath.Join(st.TaskDir(aofspec.Ready, c.task), "inputs")
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "handoff.json"), data, 0o644); err != nil {
			return err
		}
	}
	return aof.Drive(h)
}

func playSeeded(t *testing.T, c seeded, fault, engineFault string) result {
	t.Helper()
	return resultOf(t, enginetest.PlayVirtual(t, c.scenario(t), fault, engineFault, c.drive))
}

var (
	delegating = seeded{task: schedTask, tasks: []*aof.Task{{ID: schedTask, Title: "Implement the users API", Status: aofspec.Ready,
		Assignee: "swe-backend", Metadata: map[string]any{"delegationDepth": int64(0), "delegateTo": "swe-qa"}, Body: "# Users API\n"}}}
	nestedChild = seeded{task: nestedTask, tasks: []*aof.Task{{ID: nestedTask, Title: "QA the users API", Status: aofspec.Ready,
		Assignee: "swe-qa", Metadata: map[string]any{"delegationDepth": int64(1), "parentTaskId": parentID}, Body: "# QA\n"}},
		handoff: &aof.Handoff{TaskID: nestedTask, ParentTaskID: parentID, FromAgent: "swe-backend", ToAgent: "swe-qa",
			AcceptanceCriteria: []string{"All tests pass"}, DueBy: "2000-01-02T10:00:00.000Z"}}
	happy = seeded{task: taskID, tasks: []*aof.Task{{ID: taskID, Title: "Implement the users API", Status: aofspec.Ready,
		Assignee: "swe-backend", Metadata: map[string]any{"delegationDepth": int64(0)}, Body: "# Users API\n"}}}
)

// launches counts the agent's launches.
func launches(s *conform.Session) int { return len(s.Attempts) }

func TestSchedulerDispatchesAcceptedChild(t *testing.T) {
	r := playSeeded(t, delegating, "", "")
	if n := launches(r.sess); n != 2 {
		t.Fatalf("%d launches, want 2 (the parent, then its child)", n)
	}
	parent, err := r.store.Get(schedTask)
	if err != nil || parent.Status != aofspec.Review {
		t.Fatalf("parent = %+v (%v), want review", parent, err)
	}
	child, err := r.store.Get(schedChild)
	if err != nil || child.Status != aofspec.Review || child.DelegationDepth() != 1 {
		t.Fatalf("child = %+v (%v), want review at depth 1", child, err)
	}
	if _, err := os.Stat(filepath.Join(r.store.TaskDir(child.Status, schedChild), "inputs", "handoff.json")); err != nil {
		t.Errorf("the child's inputs/handoff.json moved with it: %v", err)
	}
	run, err := r.store.ReadRun(schedChild)
	if err != nil || run.AgentID != "swe-qa" {
		t.Errorf("child run.json = %+v (%v), want leased to swe-qa", run, err)
	}
	if prun, _ := r.store.ReadRun(schedTask); prun == nil || prun.AgentID != "swe-backend" {
		t.Errorf("parent run.json = %+v, want leased to its assignee swe-backend", prun)
	}
	types := eventTypes(t, r.store)
	if !inOrder(types, []string{"delegation.requested", "task.transitioned:completion_done", "lease.acquired", "delegation.accepted", "task.completed"}) {
		t.Errorf("events %v", types)
	}
	if !hasEvent(r.sess, "dispatch-child") {
		t.Error("no dispatch-child event")
	}
}

func TestSchedulerDepthGuard(t *testing.T) {
	r := playSeeded(t, nestedChild, "nested-delegation", "")
	if n := launches(r.sess); n != 1 {
		t.Fatalf("%d launches, want 1: the refused grandchild is never dispatched", n)
	}
	g, err := r.store.Get(grandchild)
	if err != nil || g.Status != aofspec.Ready {
		t.Fatalf("grandchild = %+v (%v), want left in ready", g, err)
	}
	if _, err := os.Stat(filepath.Join(r.store.TaskDir(aofspec.Ready, grandchild), "inputs", "handoff.json")); err == nil {
		t.Error("handoff.json written for a refused nested delegation")
	}
	if !strings.Contains(strings.Join(eventTypes(t, r.store), " "), "delegation.rejected:nested_delegation") {
		t.Error("no delegation.rejected nested_delegation")
	}
	// With the fault the grandchild is accepted and dispatched.
	bad := playSeeded(t, nestedChild, "nested-delegation", aof.FaultAllowNestedDelegation)
	if n := launches(bad.sess); n < 2 {
		t.Errorf("allow-nested-delegation: %d launches, want the grandchild dispatched", n)
	}
}

// schedulerFault checks one scheduler-mode engine fault: the decision it changes.
func schedulerFault(t *testing.T, name string) {
	switch name {
	case aof.FaultNoRunJSON:
		r := playSeeded(t, happy, "", name)
		if _, err := r.store.ReadRun(taskID); err == nil {
			t.Error("run.json written")
		}
	case aof.FaultDoneSkipsReview:
		r := playSeeded(t, happy, "", name)
		if got := conform.FactAOFFinalStatus.Get(r.sess); got != aofspec.Done {
			t.Errorf("final status %q, want done (review skipped)", got)
		}
	case aof.FaultBlindRequeue:
		r := playSeeded(t, happy, "crash-after-partial-report", name)
		if got := conform.FactAOFFinalStatus.Get(r.sess); got != aofspec.Ready {
			t.Errorf("final status %q, want ready (the partial result ignored)", got)
		}
		good := playSeeded(t, happy, "crash-after-partial-report", "")
		if got := conform.FactAOFFinalStatus.Get(good.sess); got != aofspec.Review {
			t.Errorf("correct engine: final status %q, want review", got)
		}
	case aof.FaultNoChildDispatch:
		r := playSeeded(t, delegating, "", name)
		if n := launches(r.sess); n != 1 {
			t.Errorf("%d launches, want the child never dispatched", n)
		}
		if c, err := r.store.Get(schedChild); err != nil || c.Status != aofspec.Ready {
			t.Errorf("child = %+v (%v), want left in ready", c, err)
		}
	case aof.FaultAcceptInvalidReport:
		r := playSeeded(t, happy, "empty-report", name)
		if _, err := os.Stat(filepath.Join(r.store.RunDir(taskID), "run_result.json")); err != nil {
			t.Errorf("run_result.json: %v, want the invalid report recorded", err)
		}
		good := playSeeded(t, happy, "empty-report", "")
		if _, err := os.Stat(filepath.Join(good.store.RunDir(taskID), "run_result.json")); err == nil {
			t.Error("correct engine: run_result.json written from an invalid report")
		}
	default:
		if _, ok := routerFaults[name]; ok {
			routerFault(t, name)
			return
		}
		t.Fatalf("engine fault %s has no test", name)
	}
}
