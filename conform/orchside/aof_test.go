package orchside

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/lint/spec/aof"
)

const aofData = "/scratch/data"

// aofScenario is a shipped aof scenario's task (dataDir /scratch/data) and setup.
func aofScenario(t *testing.T, id string) (task string, before map[string]string) {
	t.Helper()
	ss, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.ID == id {
			var su setup
			if err := json.Unmarshal(s.Setup, &su); err != nil {
				t.Fatal(err)
			}
			return strings.ReplaceAll(string(s.Task), "${SCRATCH}", "/scratch"), su.Files
		}
	}
	t.Fatalf("no scenario %s", id)
	return "", nil
}

// aofLaunch is one launch on task id as agent, printing lines, then the events.
func aofLaunch(id, agent string, lines []string, evs ...Event) Launch {
	l := Launch{Start: t0, Env: map[string]string{"AOF_TASK_ID": id, "AOF_AGENT_ID": agent, "AOF_DATA_DIR": aofData,
		"AOF_TASK_FILE": aofData + "/tasks/in-progress/" + id + ".md", "AOF_RUN_DIR": aofData + "/runs/" + id + "/"}}
	l.Events = append(l.Events, Event{At: at("1ms"), Kind: "stdin-eof"})
	for i, line := range lines {
		l.Events = append(l.Events, Event{At: at("100ms"), Kind: "stdout", Line: line, Seq: 10 + i})
	}
	l.Events = append(l.Events, evs...)
	return l
}

func envelope(typ, id, from string, payload map[string]any) string {
	b, _ := json.Marshal(map[string]any{"protocol": "aof", "version": 1, "type": typ, "taskId": id, "fromAgent": from,
		"toAgent": "dispatcher", "sentAt": "2026-11-22T10:00:00.000Z", "payload": payload})
	return string(b)
}

func aofReport(id, from, outcome string) string {
	return "AOF/1 " + envelope(aof.TypeCompletion, id, from, map[string]any{"outcome": outcome, "summaryRef": "outputs/summary.md",
		"tests": map[string]any{"total": 1, "passed": 1, "failed": 0}, "notes": "n"})
}

// aofTask is a task of the read-back state.
type aofTaskOpt func(*AOFTask)

func status(st string) aofTaskOpt { return func(t *AOFTask) { t.Statuses = []string{st} } }
func runJSON(agent, st string) aofTaskOpt {
	return func(t *AOFTask) {
		t.Run = []byte(`{"taskId":"` + t.ID + `","agentId":"` + agent + `","startedAt":"2026-11-22T10:00:00.000Z","status":"` + st + `"}`)
	}
}
func expiredAt(d string) aofTaskOpt {
	return func(t *AOFTask) {
		t.Run = []byte(`{"taskId":"` + t.ID + `","status":"expired","expiredAt":"` + at(d).Format(aof.TimeFormat) + `"}`)
	}
}
func result(agent, outcome string) aofTaskOpt {
	return func(t *AOFTask) {
		t.Result = []byte(`{"taskId":"` + t.ID + `","agentId":"` + agent + `","outcome":"` + outcome + `"}`)
	}
}
func heartbeat(last, exp string) aofTaskOpt {
	return func(t *AOFTask) {
		t.Heartbeat = []byte(`{"lastHeartbeat":"` + at(last).Format(aof.TimeFormat) + `","expiresAt":"` + at(exp).Format(aof.TimeFormat) + `"}`)
	}
}
func handoffFile(parent, to string) aofTaskOpt {
	return func(t *AOFTask) {
		t.Handoff = []byte(`{"taskId":"` + t.ID + `","parentTaskId":"` + parent + `","toAgent":"` + to + `"}`)
	}
}
func depth(n int) aofTaskOpt {
	return func(t *AOFTask) {
		t.Task = &engaof.Task{ID: t.ID, Metadata: map[string]any{"delegationDepth": int64(n)}}
	}
}

func state(events []AOFEvent, tasks map[string][]aofTaskOpt) *AOFState {
	st := &AOFState{DataDir: aofData, Tasks: map[string]*AOFTask{}, Events: events}
	for id, opts := range tasks {
		t := &AOFTask{ID: id}
		for _, o := range opts {
			o(t)
		}
		st.Tasks[id] = t
	}
	return st
}

func aofSess(task string, before map[string]string, st *AOFState, ls ...Launch) *conform.Session {
	s := session(task, nil, ls...)
	FactFilesBefore.Set(s, before)
	FactAOF.Set(s, st)
	return s
}

// TestAOFChecks judges synthetic read-backs: each aof check passes on what the
// reference engine leaves and fails on each way a scheduler can get it wrong.
func TestAOFChecks(t *testing.T) {
	const (
		happyID = "TASK-2026-11-22-001"
		noRevID = "TASK-2026-11-22-006"
		staleID = "TASK-2026-11-22-004"
		crashID = "TASK-2026-11-22-007"
		delegID = "TASK-2026-11-22-002"
		childID = "TASK-2026-11-22-502"
		nestID  = "TASK-2026-11-22-003"
		grandID = "TASK-2026-11-22-503"
		invID   = "TASK-2026-11-22-008"
	)
	happy, happyB := aofScenario(t, "orch-aof-happy-path")
	noRev, noRevB := aofScenario(t, "orch-aof-no-review")
	stale, staleB := aofScenario(t, "orch-aof-stale-reclaim")
	crash, crashB := aofScenario(t, "orch-aof-crash-partial")
	deleg, delegB := aofScenario(t, "orch-aof-delegation")
	nest, nestB := aofScenario(t, "orch-aof-nested-delegation")
	inv, invB := aofScenario(t, "orch-aof-invalid-report")

	done := aofLaunch(happyID, "swe-backend", []string{aofReport(happyID, "swe-backend", "done")}, exit("1s", 0))
	good := func(st string) *AOFState {
		return state(nil, map[string][]aofTaskOpt{happyID: {status(st), runJSON("swe-backend", "running"), result("swe-backend", "done")}})
	}
	hung := aofLaunch(staleID, "swe-backend", []string{envelope(aof.TypeStatusUpdate, staleID, "swe-backend", map[string]any{"taskId": staleID, "agentId": "swe-backend", "progress": "1/3"})}, alive("1s"))
	reclaimed := state(nil, map[string][]aofTaskOpt{staleID: {status(aof.Ready), runJSON("swe-backend", "expired"), heartbeat("500ms", "2s")}})
	crashed := aofLaunch(crashID, "swe-backend", []string{aofReport(crashID, "swe-backend", "partial")}, exit("1s", 2))
	request := envelope(aof.TypeHandoffRequest, childID, "swe-backend", map[string]any{"taskId": childID, "parentTaskId": delegID,
		"fromAgent": "swe-backend", "toAgent": "swe-qa", "dueBy": "2026-12-01T12:00:00.000Z"})
	parent := aofLaunch(delegID, "swe-backend", []string{request, aofReport(delegID, "swe-backend", "done")}, exit("1s", 0))
	childRun := aofLaunch(childID, "swe-qa", []string{aofReport(childID, "swe-qa", "done")}, exit("2s", 0))
	delegated := func(opts ...aofTaskOpt) *AOFState {
		return state(nil, map[string][]aofTaskOpt{delegID: {status(aof.Review), runJSON("swe-backend", "running")},
			childID: append([]aofTaskOpt{status(aof.Review), runJSON("swe-qa", "running")}, opts...)})
	}
	nested := envelope(aof.TypeHandoffRequest, grandID, "swe-qa", map[string]any{"taskId": grandID, "parentTaskId": nestID,
		"fromAgent": "swe-qa", "toAgent": "swe-qa", "dueBy": "2026-12-01T12:00:00.000Z"})
	nestRun := aofLaunch(nestID, "swe-qa", []string{nested, aofReport(nestID, "swe-qa", "done")}, exit("1s", 0))
	rejected := []AOFEvent{{Type: "delegation.rejected", TaskID: grandID, Reason: "nested_delegation"}}
	empty := "AOF/1 " + envelope(aof.TypeCompletion, invID, "swe-backend", map[string]any{})
	invRun := aofLaunch(invID, "swe-backend", []string{empty}, exit("1s", 0))
	invRejected := []AOFEvent{{Type: "protocol.message.rejected", TaskID: invID, Reason: "invalid_envelope"}}

	cases := []struct {
		check, name string
		s           *conform.Session
		want        conform.Verdict
	}{
		{"aof/orch/lease/dispatched", "ok", aofSess(happy, happyB, good(aof.Review), done), conform.Pass},
		{"aof/orch/lease/dispatched", "no launch", aofSess(happy, happyB, good(aof.Ready)), conform.Fail},
		{"aof/orch/lease/dispatched", "no run.json", aofSess(happy, happyB, state(nil, map[string][]aofTaskOpt{happyID: {status(aof.Review)}}), done), conform.Fail},
		{"aof/orch/lease/dispatched", "another agent", aofSess(happy, happyB, good(aof.Review), aofLaunch(happyID, "agent-under-test", nil, exit("1s", 0))), conform.Fail},
		{"aof/orch/lease/dispatched", "task file in ready", aofSess(happy, happyB, good(aof.Review), func() Launch {
			l := aofLaunch(happyID, "swe-backend", nil)
			l.Env["AOF_TASK_FILE"] = aofData + "/tasks/ready/" + happyID + ".md"
			return l
		}()), conform.Fail},

		{"aof/orch/completion/transition", "done → review", aofSess(happy, happyB, good(aof.Review), done), conform.Pass},
		{"aof/orch/completion/transition", "done → done with review required", aofSess(happy, happyB, good(aof.Done), done), conform.Fail},
		{"aof/orch/completion/transition", "left in progress", aofSess(happy, happyB, good(aof.InProgress), done), conform.Fail},
		{"aof/orch/completion/transition", "no run_result.json", aofSess(happy, happyB, state(nil, map[string][]aofTaskOpt{happyID: {status(aof.Review)}}), done), conform.Fail},
		{"aof/orch/completion/transition", "reviewRequired false → done", aofSess(noRev, noRevB,
			state(nil, map[string][]aofTaskOpt{noRevID: {status(aof.Done), result("swe-backend", "done")}}),
			aofLaunch(noRevID, "swe-backend", []string{aofReport(noRevID, "swe-backend", "done")}, exit("1s", 0))), conform.Pass},
		{"aof/orch/completion/transition", "reviewRequired false stops at review", aofSess(noRev, noRevB,
			state(nil, map[string][]aofTaskOpt{noRevID: {status(aof.Review), result("swe-backend", "done")}}),
			aofLaunch(noRevID, "swe-backend", []string{aofReport(noRevID, "swe-backend", "done")}, exit("1s", 0))), conform.Fail},
		{"aof/orch/completion/transition", "healthy agent stopped", aofSess(happy, happyB, good(aof.Review), aofLaunch(happyID, "swe-backend", nil, sig("500ms"), exit("510ms", 0))), conform.Fail},

		{"aof/orch/resume/reclaim-after-expiry", "SIGTERM at expiresAt", aofSess(stale, staleB, reclaimed, aofLaunch(staleID, "swe-backend", nil, sig("2.1s"), exit("2.1s", 0))), conform.Pass},
		{"aof/orch/resume/reclaim-after-expiry", "a quarter TTL after the beat", aofSess(stale, staleB, reclaimed, aofLaunch(staleID, "swe-backend", nil, sig("900ms"), exit("900ms", 0))), conform.Fail},
		{"aof/orch/resume/reclaim-after-expiry", "agent never stopped", aofSess(stale, staleB, reclaimed, hung), conform.Fail},
		{"aof/orch/resume/reclaim-after-expiry", "not reclaimed", aofSess(stale, staleB, state(nil, map[string][]aofTaskOpt{staleID: {status(aof.InProgress), heartbeat("500ms", "2s")}}), hung), conform.Fail},
		{"aof/orch/resume/reclaim-after-expiry", "run not expired", aofSess(stale, staleB, state(nil, map[string][]aofTaskOpt{staleID: {status(aof.Ready), runJSON("swe-backend", "running"), heartbeat("500ms", "2s")}}), hung), conform.Fail},

		{"aof/orch/resume/reclaim-after-expiry", "crashed: expiredAt at expiresAt", aofSess(stale, staleB, state(nil, map[string][]aofTaskOpt{staleID: {status(aof.Ready), expiredAt("2.1s"), heartbeat("500ms", "2s")}}), aofLaunch(staleID, "swe-backend", nil, exit("600ms", 2))), conform.Pass},
		{"aof/orch/resume/reclaim-after-expiry", "crashed: reclaimed early", aofSess(stale, staleB, state(nil, map[string][]aofTaskOpt{staleID: {status(aof.Ready), expiredAt("700ms"), heartbeat("500ms", "2s")}}), aofLaunch(staleID, "swe-backend", nil, exit("600ms", 2))), conform.Fail},
		{"aof/orch/resume/reclaim-after-expiry", "crashed: no expiredAt", aofSess(stale, staleB, state(nil, map[string][]aofTaskOpt{staleID: {status(aof.Ready), runJSON("swe-backend", "expired"), heartbeat("500ms", "2s")}}), aofLaunch(staleID, "swe-backend", nil, exit("600ms", 2))), conform.Fail},
		{"aof/orch/resume/outcome-driven", "partial → review", aofSess(crash, crashB, state(nil, map[string][]aofTaskOpt{crashID: {status(aof.Review), result("swe-backend", "partial")}}), crashed), conform.Pass},
		{"aof/orch/resume/outcome-driven", "blind requeue", aofSess(crash, crashB, state(nil, map[string][]aofTaskOpt{crashID: {status(aof.Ready), result("swe-backend", "partial")}}), crashed), conform.Fail},
		{"aof/orch/resume/outcome-driven", "never recovered", aofSess(crash, crashB, state(nil, map[string][]aofTaskOpt{crashID: {status(aof.InProgress), result("swe-backend", "partial")}}), crashed), conform.Fail},
		{"aof/orch/resume/outcome-driven", "agent did not crash", aofSess(crash, crashB, state(nil, map[string][]aofTaskOpt{crashID: {status(aof.Review)}}), aofLaunch(crashID, "swe-backend", []string{aofReport(crashID, "swe-backend", "partial")}, exit("1s", 0))), conform.NotTested},

		{"aof/orch/handoff/child-dispatched", "dispatched", aofSess(deleg, delegB, delegated(handoffFile(delegID, "swe-qa"), depth(1)), parent, childRun), conform.Pass},
		{"aof/orch/handoff/child-dispatched", "never dispatched", aofSess(deleg, delegB, delegated(handoffFile(delegID, "swe-qa"), depth(1)), parent), conform.Fail},
		{"aof/orch/handoff/child-dispatched", "no handoff.json", aofSess(deleg, delegB, delegated(depth(1)), parent, childRun), conform.Fail},
		{"aof/orch/handoff/child-dispatched", "depth not kept", aofSess(deleg, delegB, delegated(handoffFile(delegID, "swe-qa"), depth(0)), parent, childRun), conform.Fail},
		{"aof/orch/handoff/child-dispatched", "no launch on the task", aofSess(deleg, delegB, delegated(), done), conform.Fail},
		{"aof/orch/handoff/child-dispatched", "no request (the cue failed)", aofSess(deleg, delegB, delegated(), aofLaunch(delegID, "swe-backend", []string{aofReport(delegID, "swe-backend", "done")}, exit("1s", 0))), conform.NotTested},

		{"aof/orch/handoff/nested-rejected", "rejected", aofSess(nest, nestB, state(rejected, map[string][]aofTaskOpt{nestID: {status(aof.Review)}, grandID: {status(aof.Ready)}}), nestRun), conform.Pass},
		{"aof/orch/handoff/nested-rejected", "handoff written", aofSess(nest, nestB, state(rejected, map[string][]aofTaskOpt{grandID: {status(aof.Ready), handoffFile(nestID, "swe-qa")}}), nestRun), conform.Fail},
		{"aof/orch/handoff/nested-rejected", "grandchild dispatched", aofSess(nest, nestB, state(rejected, map[string][]aofTaskOpt{grandID: {status(aof.Review)}}), nestRun, aofLaunch(grandID, "swe-qa", nil)), conform.Fail},
		{"aof/orch/handoff/nested-rejected", "silently ignored", aofSess(nest, nestB, state(nil, map[string][]aofTaskOpt{grandID: {status(aof.Ready)}}), nestRun), conform.Fail},

		{"aof/orch/envelope/invalid-rejected", "rejected", aofSess(inv, invB, state(invRejected, map[string][]aofTaskOpt{invID: {status(aof.Ready)}}), invRun), conform.Pass},
		{"aof/orch/envelope/invalid-rejected", "run_result written", aofSess(inv, invB, state(invRejected, map[string][]aofTaskOpt{invID: {status(aof.Ready), result("swe-backend", "")}}), invRun), conform.Fail},
		{"aof/orch/envelope/invalid-rejected", "task moved", aofSess(inv, invB, state(invRejected, map[string][]aofTaskOpt{invID: {status(aof.Review)}}), invRun), conform.Fail},
		{"aof/orch/envelope/invalid-rejected", "not logged", aofSess(inv, invB, state(nil, map[string][]aofTaskOpt{invID: {status(aof.Ready)}}), invRun), conform.Fail},
		{"aof/orch/envelope/invalid-rejected", "cut JSON logged", aofSess(inv, invB, state([]AOFEvent{{Type: "protocol.message.rejected", Reason: "invalid_json"}}, map[string][]aofTaskOpt{invID: {status(aof.Review), result("swe-backend", "done")}}),
			aofLaunch(invID, "swe-backend", []string{`AOF/1 {"protocol":"aof","version":1,`, aofReport(invID, "swe-backend", "done")}, exit("1s", 0))), conform.Pass},
		{"aof/orch/envelope/invalid-rejected", "cut JSON not logged", aofSess(inv, invB, state(invRejected, map[string][]aofTaskOpt{invID: {status(aof.Review), result("swe-backend", "done")}}),
			aofLaunch(invID, "swe-backend", []string{`AOF/1 {"protocol":"aof","version":1,`, aofReport(invID, "swe-backend", "done")}, exit("1s", 0))), conform.Fail},
		{"aof/orch/envelope/invalid-rejected", "valid report", aofSess(inv, invB, state(nil, nil), aofLaunch(invID, "swe-backend", []string{aofReport(invID, "swe-backend", "done")})), conform.NotTested},
	}
	for _, c := range cases {
		t.Run(c.check+"/"+c.name, func(t *testing.T) {
			chk := conform.LookupCheck(c.check)
			if chk == nil {
				t.Fatalf("unknown check %s", c.check)
			}
			o := chk.Run(c.s)
			if o.Verdict != c.want {
				t.Errorf("%s, want %s: %s (expected %q, actual %q)", o.Verdict, c.want, o.Message, o.Expected, o.Actual)
			}
		})
	}
}

// TestReadAOFState reads back what the reference engine's store writes.
func TestReadAOFState(t *testing.T) {
	dir := t.TempDir()
	st, err := engaof.NewStore(dir, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	const id = "TASK-2026-11-22-001"
	if err := st.Create(&engaof.Task{ID: id, Title: "t", Status: aof.Ready, Assignee: "swe-backend", Metadata: map[string]any{"delegationDepth": int64(1)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AcquireLease(id, "swe-backend", 0); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(st.TaskDir(aof.InProgress, id), "inputs"), 0o755)
	os.WriteFile(filepath.Join(st.TaskDir(aof.InProgress, id), "inputs", "handoff.json"), []byte(`{"taskId":"`+id+`"}`), 0o644)
	st.Events.Log("delegation.rejected", "x", id, map[string]any{"reason": "nested_delegation"})
	os.WriteFile(filepath.Join(dir, "events", "junk.jsonl"), []byte("not json\n{}\n"), 0o644)
	got := ReadAOFState(dir)
	task := got.Tasks[id]
	if task == nil || task.Status() != aof.InProgress || task.Task == nil || task.Task.DelegationDepth() != 1 || task.Handoff == nil || task.Run == nil || task.Heartbeat == nil || task.Result != nil {
		t.Fatalf("task = %+v", task)
	}
	if jsonField(task.Run, "agentId") != "swe-backend" {
		t.Errorf("run.json = %s", task.Run)
	}
	if !got.HasEvent("delegation.rejected", "nested_delegation", id) || got.HasEvent("delegation.rejected", "other", "") {
		t.Errorf("events = %+v", got.Events)
	}
	if len(got.Problems) != 0 {
		t.Errorf("problems: %v", got.Problems)
	}
}
