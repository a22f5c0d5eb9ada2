package aof_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	aofspec "github.com/aopkit/aopkit/lint/spec/aof"
	mockaof "github.com/aopkit/aopkit/mockagent/aof"
)

var update = flag.Bool("update", false, "rewrite the reference transcripts in fixtures/reference/aof")

const (
	taskID   = "TASK-2026-11-22-001"
	parentID = "TASK-2026-11-22-000"
	agentID  = aof.AgentID
	childID  = "TASK-2026-11-22-501" // the task mockagent delegates
)

// scenario is a case of the engine's tests: a situation (the task's metadata, a
// handoff, a mockagent fault) and the engine's decisions expected from it.
type scenario struct {
	name       string
	fault      string
	meta       map[string]any
	handoff    bool // write inputs/handoff.json addressed to the agent before dispatch
	noCriteria bool // ... without acceptance criteria
	// terminate, when set, is a step of the scenario: SIGTERM that long after
	// the start, as the shipped aof-sigterm has it.
	terminate  time.Duration
	ignoreTerm bool // the agent ignores SIGTERM, as the process does under ignore-shutdown (enginetest.PlayIgnoringTerm)
	priorRun   bool // setup priorRun: a dead earlier run's leftovers, the task reclaimed
	// expectations
	status   string          // final status of the agent's task
	exit     int             // agent exit code (-1: stopped by a signal)
	events   []string        // event "type[:reason]" that must appear, in this order
	absent   []string        // event "type[:reason]" that must not appear
	runState string          // run.json status at the end
	harness  []conform.Event // harness events that must appear
	check    func(t *testing.T, st *aof.Store)
}

var child = map[string]any{"delegationDepth": 1, "parentTaskId": parentID}

var cases = []scenario{
	{name: "correct", status: aofspec.Review, runState: "running",
		events: []string{"lease.acquired", "protocol.message.received", "task.completed", "session.ended", "task.transitioned:completion_done"},
		absent: []string{"protocol.message.rejected", "completion.warning"}},
	{name: "correct-no-review", meta: map[string]any{"reviewRequired": false}, status: aofspec.Done, runState: "running",
		events: []string{"task.completed", "session.ended", "task.transitioned:completion_done", "task.transitioned:completion_done"}},
	{name: "delegation", meta: map[string]any{"delegateTo": "swe-qa"}, status: aofspec.Review, runState: "running",
		events: []string{"delegation.requested", "task.completed", "task.transitioned:completion_done"},
		check: func(t *testing.T, st *aof.Store) {
			c, err := st.Get(childID)
			if err != nil {
				t.Fatal(err)
			}
			if c.DelegationDepth() != 1 || c.Metadata["parentTaskId"] != taskID {
				t.Errorf("child metadata = %v, want delegationDepth 1, parentTaskId %s", c.Metadata, taskID)
			}
			dir := st.TaskDir(c.Status, c.ID)
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
	{name: "child-does-not-delegate", meta: map[string]any{"delegationDepth": 1, "parentTaskId": parentID, "delegateTo": "swe-qa"},
		status: aofspec.Review, runState: "running", absent: []string{"delegation.requested", "delegation.rejected"}},
	{name: "child-accepts-handoff", handoff: true, meta: child, status: aofspec.Review, runState: "running",
		events: []string{"protocol.message.received", "delegation.accepted", "task.completed", "task.transitioned:completion_done"}},
	{name: "child-rejects-insufficient-handoff", handoff: true, noCriteria: true, meta: child, status: aofspec.Blocked, runState: "running",
		events: []string{"task.transitioned:Insufficient context: the handoff has no acceptance criteria", "delegation.rejected:Insufficient context: the handoff has no acceptance criteria"},
		absent: []string{"task.completed"}},
	{name: "ignore-handoff", fault: "ignore-handoff", handoff: true, meta: child, status: aofspec.Review, runState: "running",
		absent: []string{"delegation.accepted", "delegation.rejected"}},
	{name: "nested-delegation", fault: "nested-delegation", meta: child, status: aofspec.Review, runState: "running",
		events:  []string{"protocol.message.received", "delegation.rejected:nested_delegation", "task.completed"},
		absent:  []string{"delegation.requested"},
		harness: []conform.Event{"delegation-rejected"},
		check: func(t *testing.T, st *aof.Store) {
			c, err := st.Get(childID)
			if err == nil {
				if _, err := os.Stat(filepath.Join(st.TaskDir(c.Status, c.ID), "inputs", "handoff.json")); err == nil {
					t.Error("handoff.json written for a refused nested delegation")
				}
			}
		}},
	{name: "hang", fault: "hang", status: aofspec.Ready, exit: -1, runState: "expired", harness: []conform.Event{"stale-heartbeat", "signal"},
		events: []string{"task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed", "session.ended"}},
	{name: "stop-heartbeats", fault: "stop-heartbeats", status: aofspec.Ready, exit: -1, runState: "expired", harness: []conform.Event{"stale-heartbeat"},
		events: []string{"task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed"}},
	{name: "late-heartbeats", fault: "late-heartbeats", status: aofspec.Ready, exit: -1, runState: "expired", harness: []conform.Event{"stale-heartbeat"},
		events: []string{"task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed"}},
	{name: "exceed-timeout", fault: "exceed-timeout", status: aofspec.Ready, exit: -1, runState: "expired", harness: []conform.Event{"timeout"},
		events: []string{"task.transitioned:stale_heartbeat_reclaim"}, absent: []string{"task.completed", "session.ended"}},
	{name: "crash-mid-task", fault: "crash-mid-task", status: aofspec.Ready, exit: 2, runState: "expired",
		events: []string{"task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"session.ended"}},
	{name: "crash-after-partial-report", fault: "crash-after-partial-report", status: aofspec.Review, exit: 2, runState: "running",
		events: []string{"task.completed", "task.transitioned:stale_heartbeat_partial"},
		absent: []string{"session.ended", "run.expired"}},
	{name: "no-completion-report", fault: "no-completion-report", status: aofspec.Ready, runState: "expired",
		events: []string{"session.ended", "task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed"}},
	{name: "malformed-json", fault: "malformed-json", status: aofspec.Review, runState: "running",
		events: []string{"protocol.message.rejected:invalid_json", "task.completed", "task.transitioned:completion_done"}},
	{name: "empty-report", fault: "empty-report", status: aofspec.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope", "session.ended", "task.transitioned:stale_heartbeat_reclaim"},
		absent: []string{"task.completed"}},
	{name: "oversize-payload", fault: "oversize-payload", status: aofspec.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope", "task.transitioned:stale_heartbeat_reclaim"},
		absent: []string{"task.completed"}},
	{name: "bad-timestamps", fault: "bad-timestamps", status: aofspec.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope", "task.transitioned:stale_heartbeat_reclaim"},
		absent: []string{"protocol.message.received", "task.completed"}},
	{name: "invalid-transition", fault: "invalid-transition", status: aofspec.Review, runState: "running",
		events: []string{"task.transition.rejected:invalid_transition", "task.completed", "task.transitioned:completion_done"},
		check: func(t *testing.T, st *aof.Store) {
			task, _ := st.Get(taskID)
			if !strings.Contains(task.Body, "Progress: Step 2/3 done | Requested status: done (invalid transition from in-progress)") {
				t.Errorf("work log missing the refused status; body:\n%s", task.Body)
			}
		}},
	{name: "stdout-garbage", fault: "stdout-garbage", status: aofspec.Review, runState: "running",
		events: []string{"task.completed"}, absent: []string{"protocol.message.rejected"}},
	{name: "taskid-mismatch", fault: "taskid-mismatch", status: aofspec.Review, runState: "running",
		events: []string{"protocol.message.rejected:taskId_mismatch", "task.completed"}},
	{name: "unknown-type", fault: "unknown-type", status: aofspec.Review, runState: "running",
		events: []string{"protocol.message.unknown", "task.completed"}},
	{name: "wrong-version", fault: "wrong-version", status: aofspec.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope", "task.transitioned:stale_heartbeat_reclaim"},
		absent: []string{"protocol.message.received"}},
	{name: "duplicate-completion", fault: "duplicate-completion", status: aofspec.Review, runState: "running",
		events: []string{"task.completed", "protocol.message.received", "session.ended", "task.transitioned:completion_done"},
		check: func(t *testing.T, st *aof.Store) {
			n := 0
			for _, e := range eventTypes(t, st) {
				if e == "task.completed" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("task.completed logged %d times, want 1 (idempotent)", n)
			}
		}},
	{name: "unauthorized-agent", fault: "unauthorized-agent", status: aofspec.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:unauthorized_agent", "task.transitioned:stale_heartbeat_reclaim"}},
	// SIGTERM at 0.7 s: the agent works on (step 2 to 5 of 6, heartbeat fresh)
	// through the 2 s grace; SIGKILL at 2.7 s stops it before its completion
	// report, and the scheduler reclaims the task.
	{name: "ignore-shutdown", fault: "ignore-shutdown", terminate: 700 * time.Millisecond, ignoreTerm: true,
		status: aofspec.Ready, exit: -1, runState: "expired", harness: []conform.Event{"signal", "kill"},
		events: []string{"lease.acquired", "protocol.message.received", "task.transitioned:stale_heartbeat_reclaim", "run.expired:stale_heartbeat"},
		absent: []string{"task.completed", "session.ended", "protocol.message.rejected"}},
	// The router validates the payload (AOF-SCHEMA-001): the second status.update
	// is rejected, the run goes on and completes.
	{name: "string-blockers", fault: "string-blockers", status: aofspec.Review, runState: "running",
		events: []string{"protocol.message.received", "protocol.message.rejected:invalid_envelope", "protocol.message.received", "task.completed", "session.ended", "task.transitioned:completion_done"}},
	{name: "tests-overflow", fault: "tests-overflow", status: aofspec.Ready, runState: "expired",
		events: []string{"protocol.message.rejected:invalid_envelope"}, absent: []string{"task.completed"}},
	{name: "wrong-parent", fault: "wrong-parent", status: aofspec.Review, runState: "running",
		events: []string{"delegation.requested", "task.completed", "task.transitioned:completion_done"},
		check: func(t *testing.T, st *aof.Store) {
			// The router takes the handoff's parentTaskId as it is: the
			// child is recorded as its own parent.
			c, err := st.Get(childID)
			if err != nil {
				t.Fatal(err)
			}
			if c.Metadata["parentTaskId"] != childID {
				t.Errorf("child metadata = %v, want parentTaskId %s (the handoff's)", c.Metadata, childID)
			}
		}},
	{name: "requeue-on-resume", fault: "requeue-on-resume", priorRun: true, status: aofspec.Ready, runState: "running",
		events: []string{"run.expired:stale_heartbeat", "task.transitioned:a previous run left partial work in the run directory", "task.completed", "session.ended"},
		absent: []string{"task.transitioned:completion_done"}},
}

// conformScenario is the scenario a case plays: the happy path's shape (TTL
// 1.5 s, deadline 5.25 s) with the case's task metadata and handoff.
func (c scenario) conformScenario(t *testing.T) *conform.Scenario {
	task := map[string]any{"taskId": taskID, "title": "Implement the users API", "heartbeatTTL": "1500ms", "metadata": c.meta}
	if c.handoff {
		h := map[string]any{"taskId": taskID, "parentTaskId": parentID, "fromAgent": "swe-lead", "toAgent": agentID,
			"acceptanceCriteria": []string{"All tests pass"}, "expectedOutputs": []string{}, "contextRefs": []string{}, "constraints": []string{},
			"dueBy": "2000-01-02T10:00:00.000Z"}
		if c.noCriteria {
			h["acceptanceCriteria"] = []string{}
		}
		task["handoff"] = h
	}
	b, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	// The deadline falls on no instant the agent acts at (it beats every 0.5 s):
	// on virtual time, two goroutines waking at one instant run in either order.
	sc := &conform.Scenario{ID: "aof-" + c.name, Protocol: "aof", Family: "engine", Deadline: conform.Duration(5250 * time.Millisecond), Task: b}
	if c.terminate > 0 {
		sc.Steps = []conform.Step{{On: "start", After: conform.Duration(c.terminate), Do: "terminate", Reason: "run timeout"}}
	}
	if c.priorRun {
		sc.Setup = json.RawMessage(`{"priorRun":true}`)
	}
	return sc
}

// result is what one run left: the store, the session and the transcript.
type result struct {
	store *aof.Store
	sess  *conform.Session
	p     enginetest.Played
}

func play(t *testing.T, sc *conform.Scenario, fault, engineFault string) result {
	t.Helper()
	return resultOf(t, enginetest.PlayVirtual(t, sc, fault, engineFault, aof.Drive))
}

// resultOf is what the played run p left (the test fails if Drive failed).
func resultOf(t *testing.T, p enginetest.Played) result {
	t.Helper()
	if p.Err != nil {
		t.Fatalf("Drive: %v", p.Err)
	}
	st, err := aof.NewStore(filepath.Join(p.Scratch, "data"), clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	return result{store: st, sess: p.Session, p: p}
}

// TestCases plays each case against mockagent through the harness on virtual
// time and checks the dispatcher's decisions: routing, transitions, stale
// recovery, stopping the agent.
func TestCases(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.fault] = true
		t.Run(c.name, func(t *testing.T) {
			var r result
			if c.ignoreTerm {
				r = resultOf(t, enginetest.PlayIgnoringTerm(t, c.conformScenario(t), c.fault, aof.Drive))
			} else {
				r = play(t, c.conformScenario(t), c.fault, "")
			}
			if a := r.sess.Last(); a == nil || a.Exit.Code != c.exit {
				t.Errorf("exit = %+v, want code %d", a, c.exit)
			}
			task, err := r.store.Get(taskID)
			if err != nil {
				t.Fatal(err)
			}
			if task.Status != c.status || conform.FactAOFFinalStatus.Get(r.sess) != c.status {
				t.Errorf("final status = %s (fact %q), want %s", task.Status, conform.FactAOFFinalStatus.Get(r.sess), c.status)
			}
			if _, err := os.Stat(r.store.TaskPath(task.Status, taskID)); err != nil {
				t.Errorf("task file not in tasks/%s/: %v", task.Status, err)
			}
			if run, err := r.store.ReadRun(taskID); err != nil || run.Status != c.runState {
				t.Errorf("run.json = %+v (%v), want status %s", run, err, c.runState)
			}
			types := eventTypes(t, r.store)
			if !inOrder(types, c.events) {
				t.Errorf("events %v\ndo not contain, in order, %v", types, c.events)
			}
			for _, a := range c.absent {
				for _, ty := range types {
					if ty == a || strings.HasPrefix(ty, a+":") {
						t.Errorf("event %s must not appear: %v", a, types)
					}
				}
			}
			for _, ev := range c.harness {
				if !hasEvent(r.sess, ev) {
					t.Errorf("no harness event %s", ev)
				}
			}
			if c.check != nil {
				c.check(t, r.store)
			}
			golden(t, c.name+".jsonl", r.p.Transcript)
			golden(t, c.name+".events.golden", eventsFile(t, r.store))
		})
	}
	for _, f := range mockaof.Agent.Faults.List() {
		if !covered[f.Name] {
			t.Errorf("fault %s has no case", f.Name)
		}
	}
}

// TestShippedScenarios plays the shipped aof scenarios against the correct
// mockagent: the task ends where the scenario expects, and the transcript is the
// reference one.
func TestShippedScenarios(t *testing.T) {
	for _, sc := range enginetest.Builtin(t, "aof") {
		t.Run(sc.ID, func(t *testing.T) {
			r := play(t, sc, "", "")
			name := "correct-" + strings.TrimPrefix(sc.ID, "aof-")
			want := []string{aofspec.Review}
			if sc.ID == "aof-sigterm" {
				// The step stops the agent before it completes; the scheduler then
				// reclaims the task.
				name, want = "sigterm", []string{aofspec.Ready}
			}
			if got := conform.FactAOFFinalStatus.Get(r.sess); got != want[0] {
				t.Errorf("final status %q, want %q", got, want[0])
			}
			if hasEvent(r.sess, "stale-heartbeat") || hasEvent(r.sess, "timeout") {
				t.Error("a correct agent was found stale or timed out")
			}
			golden(t, name+".jsonl", r.p.Transcript)
		})
	}
}

// TestEngineFaults: each engine fault changes the dispatcher's decision as named.
func TestEngineFaults(t *testing.T) {
	for _, f := range aof.Faults() {
		t.Run(f.Name, func(t *testing.T) {
			switch f.Name {
			case aof.FaultReclaimTooEarly:
				// The correct agent refreshes its heartbeat every TTL/3: fresh to
				// the correct scheduler, stale to one that reclaims early.
				good := play(t, cases[0].conformScenario(t), "", "")
				bad := play(t, cases[0].conformScenario(t), "", f.Name)
				if hasEvent(good.sess, "stale-heartbeat") {
					t.Fatal("the correct engine found the correct agent stale")
				}
				if !hasEvent(bad.sess, "stale-heartbeat") || conform.FactAOFFinalStatus.Get(bad.sess) != aofspec.Ready {
					t.Errorf("final status %q: want the task reclaimed before its heartbeat expired", conform.FactAOFFinalStatus.Get(bad.sess))
				}
			case aof.FaultAllowNestedDelegation:
				c := cases[7] // nested-delegation
				r := play(t, c.conformScenario(t), c.fault, f.Name)
				types := strings.Join(eventTypes(t, r.store), " ")
				if !strings.Contains(types, "delegation.requested") || strings.Contains(types, "delegation.rejected:nested_delegation") {
					t.Errorf("events %s: want the nested delegation accepted", types)
				}
			default:
				schedulerFault(t, f.Name)
			}
		})
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

func hasEvent(s *conform.Session, ev conform.Event) bool {
	for _, r := range s.Records {
		if r.From == "harness" && r.Event == ev {
			return true
		}
	}
	return false
}

// eventTypes reads the events log the run wrote: the types in order,
// "type:reason" when the payload has a reason.
func eventTypes(t *testing.T, st *aof.Store) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(eventsFile(t, st))), "\n") {
		var e aof.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("events.jsonl: %v", err)
		}
		ty := e.Type
		if r, ok := e.Payload["reason"].(string); ok {
			ty += ":" + r
		}
		out = append(out, ty)
	}
	return out
}

func eventsFile(t *testing.T, st *aof.Store) []byte {
	data, err := os.ReadFile(filepath.Join(st.Dir, "events", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// golden compares got with its reference file (go test -update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	enginetest.Golden(t, filepath.Join("..", "..", "..", "fixtures", "reference", "aof", name), got, *update)
}
