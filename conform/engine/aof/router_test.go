package aof_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	aofspec "github.com/aopkit/aopkit/lint/spec/aof"
)

var start = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// fixture is a store with a parent (in-progress, leased to swe-backend, depth 0), a
// ready child and a grandchild candidate.
func fixture(t *testing.T) (*aof.Router, *clock.Fake) {
	t.Helper()
	fake := clock.NewFake(start)
	st, err := aof.NewStore(t.TempDir(), fake)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range []*aof.Task{
		{ID: "TASK-2026-02-09-057", Title: "Parent", Status: aofspec.Ready},
		{ID: "TASK-2026-02-09-060", Title: "Child", Status: aofspec.Ready},
		{ID: "TASK-2026-02-09-061", Title: "Grandchild", Status: aofspec.Ready},
		{ID: "TASK-2026-02-09-070", Title: "Done", Status: aofspec.Done},
	} {
		if err := st.Create(tk); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.AcquireLease("TASK-2026-02-09-057", "swe-backend", 0); err != nil {
		t.Fatal(err)
	}
	return &aof.Router{Store: st}, fake
}

func env(typ, task, from string, payload string) string {
	return `{"protocol":"aof","version":1,"type":"` + typ + `","taskId":"` + task + `","fromAgent":"` + from +
		`","toAgent":"dispatcher","sentAt":"2026-02-09T21:00:00.000Z","payload":` + payload + `}`
}

const completionDone = `{"outcome":"done","summaryRef":"outputs/summary.md","tests":{"total":1,"passed":1,"failed":0},"notes":"ok"}`

func handoff(child, parent string) string {
	return `{"taskId":"` + child + `","parentTaskId":"` + parent + `","fromAgent":"swe-backend","toAgent":"swe-qa","acceptanceCriteria":["All tests pass"],"dueBy":"2026-02-10T12:00:00.000Z"}`
}

func TestRouterDecisions(t *testing.T) {
	tests := []struct {
		name         string
		line         string
		kind, reason string
		events       []string
	}{
		{"log line", "compiling...", aof.KindNotProtocol, "", nil},
		{"other JSON", `{"level":"info","msg":"x"}`, aof.KindNotProtocol, "", nil},
		{"bare bad JSON", `{"protocol":"aof",`, aof.KindRejected, "invalid_json", []string{"protocol.message.rejected:invalid_json"}},
		{"prefixed bad JSON", `AOF/1 {"protocol":`, aof.KindRejected, "invalid_json", []string{"protocol.message.rejected:invalid_json"}},
		{"prefixed valid", "AOF/1 " + env("status.update", "TASK-2026-02-09-057", "swe-backend", `{"taskId":"TASK-2026-02-09-057","agentId":"swe-backend","progress":"half"}`),
			aof.KindRouted, "work_log", []string{"protocol.message.received"}},
		{"version 2", strings.Replace(env("status.update", "TASK-2026-02-09-057", "swe-backend", `{}`), `"version":1`, `"version":2`, 1),
			aof.KindRejected, "invalid_envelope", []string{"protocol.message.rejected:invalid_envelope"}},
		{"bad taskId", env("status.update", "TASK-2026-2-9-57", "swe-backend", `{}`), aof.KindRejected, "invalid_envelope", nil},
		{"unknown type", env("task.progress", "TASK-2026-02-09-057", "swe-backend", `{}`), aof.KindUnknown, "", []string{"protocol.message.unknown"}},
		{"empty status update", env("status.update", "TASK-2026-02-09-057", "swe-backend", `{"taskId":"TASK-2026-02-09-057","agentId":"swe-backend"}`),
			aof.KindRejected, "invalid_envelope", nil},
		{"status update task not found", env("status.update", "TASK-2026-02-09-099", "swe-backend", `{"taskId":"TASK-2026-02-09-099","agentId":"swe-backend","notes":"x"}`),
			aof.KindRejected, "task_not_found", []string{"protocol.message.rejected:task_not_found"}},
		{"status update to blocked", env("status.update", "TASK-2026-02-09-057", "swe-backend", `{"taskId":"TASK-2026-02-09-057","agentId":"swe-backend","status":"blocked","blockers":["Awaiting API key"],"notes":"later"}`),
			aof.KindRouted, "transitioned", []string{"protocol.message.received", "task.transitioned:Awaiting API key"}},
		{"status update invalid transition", env("status.update", "TASK-2026-02-09-057", "swe-backend", `{"taskId":"TASK-2026-02-09-057","agentId":"swe-backend","status":"done"}`),
			aof.KindRouted, "invalid_transition", []string{"task.transition.rejected:invalid_transition"}},
		{"completion task not found", env("completion.report", "TASK-2026-02-09-099", "swe-backend", completionDone),
			aof.KindRejected, "task_not_found", nil},
		{"completion bad outcome", env("completion.report", "TASK-2026-02-09-057", "swe-backend", strings.Replace(completionDone, `"done"`, `"finished"`, 1)),
			aof.KindRejected, "invalid_envelope", nil},
		{"completion missing notes", env("completion.report", "TASK-2026-02-09-057", "swe-backend", strings.Replace(completionDone, `,"notes":"ok"`, ``, 1)),
			aof.KindRejected, "invalid_envelope", nil},
		{"completion summaryRef 257", env("completion.report", "TASK-2026-02-09-057", "swe-backend", strings.Replace(completionDone, `outputs/summary.md`, strings.Repeat("x", 257), 1)),
			aof.KindRejected, "invalid_envelope", nil},
		{"completion by another agent", env("completion.report", "TASK-2026-02-09-057", "mallory", completionDone),
			aof.KindRejected, "unauthorized_agent", nil},
		{"completion while done", env("completion.report", "TASK-2026-02-09-070", "swe-backend", completionDone),
			aof.KindRouted, "noop", []string{"protocol.message.received"}},
		{"completion", env("completion.report", "TASK-2026-02-09-057", "swe-backend", completionDone),
			aof.KindRouted, "", []string{"protocol.message.received", "task.completed", "completion.warning:summary_missing"}},
		{"handoff taskId mismatch", env("handoff.request", "TASK-2026-02-09-061", "swe-backend", handoff("TASK-2026-02-09-060", "TASK-2026-02-09-057")),
			aof.KindRejected, "taskId_mismatch", []string{"protocol.message.rejected:taskId_mismatch"}},
		{"handoff child not found", env("handoff.request", "TASK-2026-02-09-099", "swe-backend", handoff("TASK-2026-02-09-099", "TASK-2026-02-09-057")),
			aof.KindRejected, "task_not_found", []string{"protocol.message.rejected:task_not_found", "delegation.rejected:task_not_found"}},
		{"handoff parent not found", env("handoff.request", "TASK-2026-02-09-060", "swe-backend", handoff("TASK-2026-02-09-060", "TASK-2026-02-09-098")),
			aof.KindRouted, "parent_not_found", []string{"protocol.message.received", "delegation.rejected:parent_not_found"}},
		{"handoff bad dueBy", env("handoff.request", "TASK-2026-02-09-060", "swe-backend", strings.Replace(handoff("TASK-2026-02-09-060", "TASK-2026-02-09-057"), "2026-02-10T12:00:00.000Z", "tomorrow", 1)),
			aof.KindRejected, "invalid_envelope", nil},
		{"handoff bad criteria proceeds", env("handoff.request", "TASK-2026-02-09-060", "swe-backend", strings.Replace(handoff("TASK-2026-02-09-060", "TASK-2026-02-09-057"), `["All tests pass"]`, `"All tests pass"`, 1)),
			aof.KindRouted, "delegated", []string{"protocol.message.schema_error", "delegation.requested"}},
		{"handoff accepted", env("handoff.accepted", "TASK-2026-02-09-060", "swe-qa", `{"taskId":"TASK-2026-02-09-060","accepted":true}`),
			aof.KindRouted, "accepted", []string{"delegation.accepted"}},
		{"handoff accepted as string", env("handoff.accepted", "TASK-2026-02-09-060", "swe-qa", `{"taskId":"TASK-2026-02-09-060","accepted":"true"}`),
			aof.KindRejected, "invalid_envelope", nil},
		{"handoff rejected", env("handoff.rejected", "TASK-2026-02-09-060", "swe-qa", `{"taskId":"TASK-2026-02-09-060","accepted":false,"reason":"Insufficient context"}`),
			aof.KindRouted, "rejected", []string{"task.transitioned:Insufficient context", "delegation.rejected:Insufficient context"}},
		{"not an object after prefix", `AOF/1 [1,2]`, aof.KindRejected, "invalid_json", nil},
		{"trailing data", env("status.update", "TASK-2026-02-09-057", "swe-backend", `{}`) + ` {}`, aof.KindRejected, "invalid_json", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, _ := fixture(t)
			before := len(r.Store.Events.All())
			o := r.Handle([]byte(tc.line))
			if o.Kind != tc.kind || (tc.reason != "" && o.Reason != tc.reason) {
				t.Errorf("outcome %+v, want kind %s reason %s", o, tc.kind, tc.reason)
			}
			got := append([]string(nil), r.Store.Events.Types()[before:]...)
			if !inOrder(got, tc.events) {
				t.Errorf("events %v, want in order %v", got, tc.events)
			}
		})
	}
}

func TestHandoffDepthGuardAndIdempotency(t *testing.T) {
	r, _ := fixture(t)
	req := env("handoff.request", "TASK-2026-02-09-060", "swe-backend", handoff("TASK-2026-02-09-060", "TASK-2026-02-09-057"))
	if o := r.Handle([]byte(req)); o.Reason != "delegated" || len(o.Written) != 2 {
		t.Fatalf("first handoff: %+v", o)
	}
	if o := r.Handle([]byte(req)); o.Reason != "duplicate" || len(o.Written) != 0 {
		t.Errorf("re-sent handoff: %+v, want duplicate (no second delegation)", o)
	}
	child, _ := r.Store.Get("TASK-2026-02-09-060")
	if child.DelegationDepth() != 1 {
		t.Errorf("child depth %d, want 1", child.DelegationDepth())
	}
	data, err := os.ReadFile(filepath.Join(r.Store.TaskDir(aofspec.Ready, "TASK-2026-02-09-060"), "inputs", "handoff.json"))
	var h aof.Handoff
	if err != nil || json.Unmarshal(data, &h) != nil || len(h.ExpectedOutputs) != 0 || h.ExpectedOutputs == nil {
		t.Errorf("handoff.json %s: defaults must be [] (%v)", data, err)
	}
	// The child (depth 1) now delegates: refused.
	nested := env("handoff.request", "TASK-2026-02-09-061", "swe-qa", handoff("TASK-2026-02-09-061", "TASK-2026-02-09-060"))
	if o := r.Handle([]byte(nested)); o.Reason != "nested_delegation" {
		t.Errorf("nested: %+v", o)
	}
	if _, err := os.Stat(filepath.Join(r.Store.TaskDir(aofspec.Ready, "TASK-2026-02-09-061"), "inputs")); err == nil {
		t.Error("nested delegation wrote inputs/")
	}
	// The child's inputs move with it.
	if _, err := r.Store.Transition("TASK-2026-02-09-060", aofspec.InProgress, "test", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Store.TaskDir(aofspec.InProgress, "TASK-2026-02-09-060"), "inputs", "handoff.md")); err != nil {
		t.Errorf("companion directory did not move: %v", err)
	}
}

func TestSessionEndAndIdempotency(t *testing.T) {
	r, _ := fixture(t)
	id := "TASK-2026-02-09-057"
	r.Handle([]byte(env("completion.report", id, "swe-backend", completionDone)))
	r.SessionEnd()
	task, _ := r.Store.Get(id)
	if task.Status != aofspec.Review {
		t.Fatalf("status %s, want review", task.Status)
	}
	n := len(r.Store.Events.All())
	r.SessionEnd() // the task is no longer in progress: nothing happens
	if o := r.Handle([]byte(env("completion.report", id, "swe-backend", completionDone))); o.Reason != "duplicate" {
		t.Errorf("re-sent completion: %+v", o)
	}
	for _, e := range r.Store.Events.All()[n:] {
		if e.Type == "task.transitioned" || e.Type == "task.completed" {
			t.Errorf("idempotency broken: %+v", e)
		}
	}
}

func TestSchedulerPoll(t *testing.T) {
	t.Run("heartbeat missing is skipped", func(t *testing.T) {
		r, fake := fixture(t)
		os.Remove(filepath.Join(r.Store.RunDir("TASK-2026-02-09-057"), "run_heartbeat.json"))
		fake.Advance(aofspec.DefaultTTL * 2)
		if acts := r.Poll(); len(acts) != 0 {
			t.Errorf("actions %+v, want none", acts)
		}
	})
	t.Run("fresh heartbeat", func(t *testing.T) {
		r, fake := fixture(t)
		fake.Advance(aofspec.DefaultTTL - 1)
		if acts := r.Poll(); len(acts) != 0 {
			t.Errorf("actions %+v, want none", acts)
		}
		fake.Advance(1) // expiresAt <= now is stale
		if acts := r.Poll(); len(acts) != 1 || acts[0].Kind != aof.ActionStaleReclaim {
			t.Errorf("actions %+v, want one reclaim", acts)
		}
	})
	t.Run("invalid run_result", func(t *testing.T) {
		r, fake := fixture(t)
		os.WriteFile(filepath.Join(r.Store.RunDir("TASK-2026-02-09-057"), "run_result.json"), []byte(`{"outcome":"finished"}`), 0o644)
		fake.Advance(aofspec.DefaultTTL)
		acts := r.Poll()
		if len(acts) != 1 || acts[0].Kind != aof.ActionStaleInvalid {
			t.Errorf("actions %+v", acts)
		}
		if task, _ := r.Store.Get("TASK-2026-02-09-057"); task.Status != aofspec.InProgress {
			t.Errorf("status %s, want in-progress (no transition)", task.Status)
		}
	})
	t.Run("done without review", func(t *testing.T) {
		r, fake := fixture(t)
		task, _ := r.Store.Get("TASK-2026-02-09-057")
		task.SetMeta("reviewRequired", false)
		r.Store.Save(task)
		r.Handle([]byte(env("completion.report", task.ID, "swe-backend", completionDone)))
		fake.Advance(aofspec.DefaultTTL)
		acts := r.Poll()
		if len(acts) != 1 || strings.Join(acts[0].Transitions, ",") != "review,done" {
			t.Errorf("actions %+v, want review,done", acts)
		}
	})
	t.Run("blocked", func(t *testing.T) {
		r, fake := fixture(t)
		r.Handle([]byte(env("completion.report", "TASK-2026-02-09-057", "swe-backend", strings.Replace(completionDone, `"done"`, `"blocked","blockers":["Awaiting API key"]`, 1))))
		fake.Advance(aofspec.DefaultTTL)
		if acts := r.Poll(); len(acts) != 1 || strings.Join(acts[0].Transitions, ",") != "blocked" {
			t.Errorf("actions %+v, want blocked", acts)
		}
	})
}

func TestTaskFileRoundTrip(t *testing.T) {
	in := &aof.Task{ID: "TASK-2026-02-09-057", Title: "Fix: the \"auth\" bug", Status: aofspec.Ready, CreatedAt: "2026-02-09T20:00:00.000Z",
		Lease: &aof.Lease{Agent: "a", AcquiredAt: "2026-02-09T20:00:00.000Z"}, Body: "# Body\n"}
	in.SetMeta("delegationDepth", 1)
	in.SetMeta("reviewRequired", false)
	in.SetMeta("note", "123")
	out, err := aof.ParseTask(in.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if out.Title != in.Title || out.DelegationDepth() != 1 || out.ReviewRequired() || out.Metadata["note"] != "123" || out.Lease.Agent != "a" || out.Body != in.Body {
		t.Errorf("round trip:\n%s\n%+v", in.Marshal(), out)
	}
	out.AppendWorkLog("2026-02-09T21:05:00.000Z", "Progress: x")
	out.AppendWorkLog("2026-02-09T21:06:00.000Z", "Notes: y")
	if want := "# Body\n\n## Work Log\n\n- 2026-02-09T21:05:00.000Z Progress: x\n- 2026-02-09T21:06:00.000Z Notes: y\n"; out.Body != want {
		t.Errorf("work log body %q, want %q", out.Body, want)
	}
	for _, bad := range []string{"", "---\n", "no frontmatter", "---\nid TASK\n---\n", "---\ntitle: x\n---\n", "---\nid: \"unterminated\n---\n"} {
		if _, err := aof.ParseTask([]byte(bad)); err == nil {
			t.Errorf("ParseTask(%q) accepted", bad)
		}
	}
}

func TestTransitions(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{aofspec.Ready, aofspec.InProgress, true}, {aofspec.InProgress, aofspec.Review, true}, {aofspec.InProgress, aofspec.Done, false},
		{aofspec.Review, aofspec.Done, true}, {aofspec.Done, aofspec.Review, false}, {aofspec.Blocked, aofspec.Ready, true},
		{aofspec.InProgress, aofspec.Ready, true}, {aofspec.Cancelled, aofspec.Ready, false}, {aofspec.Backlog, aofspec.InProgress, false},
	} {
		if got := aofspec.ValidTransition(c.from, c.to); got != c.ok {
			t.Errorf("%s → %s: %v, want %v", c.from, c.to, got, c.ok)
		}
	}
}

func FuzzRouter(f *testing.F) {
	f.Add([]byte(env("completion.report", "TASK-2026-02-09-057", "swe-backend", completionDone)))
	f.Add([]byte("AOF/1 " + env("handoff.request", "TASK-2026-02-09-060", "swe-backend", handoff("TASK-2026-02-09-060", "TASK-2026-02-09-057"))))
	f.Add([]byte(`{"protocol":"aof","version":1e400}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, _ := fixture(t)
		r.Handle(line)
	})
}

// FuzzEnvelopeProblem: EnvelopeProblem (what the orchestrator side judges with)
// says a line is invalid exactly when the router rejects it as invalid_json or
// invalid_envelope.
func FuzzEnvelopeProblem(f *testing.F) {
	f.Add([]byte(env("completion.report", "TASK-2026-02-09-057", "swe-backend", completionDone)))
	f.Add([]byte("AOF/1 " + env("completion.report", "TASK-2026-02-09-057", "swe-backend", `{}`)))
	f.Add([]byte("AOF/1 " + env("handoff.request", "TASK-2026-02-09-060", "swe-backend", handoff("TASK-2026-02-09-060", "TASK-2026-02-09-057"))))
	f.Add([]byte(`AOF/1 {"protocol":"aof",`))
	f.Add([]byte(`{"protocol":"aof","version":1e400}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, _ := fixture(t)
		p := aof.EnvelopeProblem(line)
		o := r.Handle(line)
		invalid := o.Kind == aof.KindRejected && (o.Reason == aof.ReasonInvalidJSON || o.Reason == aof.ReasonInvalidEnvelope)
		if len(line) > aofspec.MaxMessage {
			return // the router's size bound comes first
		}
		if invalid != (p != "") || invalid && !strings.HasPrefix(p, o.Reason) {
			t.Fatalf("EnvelopeProblem %q, router %s %s (%s)", p, o.Kind, o.Reason, o.Detail)
		}
	})
}

// routerFaults are the engine faults of the router, the scheduler poll and the
// lease: each plays lines (and a poll) on the fixture, with the fault and
// without, and what the two leave (events, statuses, the parent's work log, its
// run.json status) must differ.
var routerFaults = func() map[string][]string {
	const parent, child, done = "TASK-2026-02-09-057", "TASK-2026-02-09-060", "TASK-2026-02-09-070"
	su := func(task, from, payload string) string {
		return env("status.update", task, from, `{"taskId":"`+task+`","agentId":"`+from+`",`+payload+`}`)
	}
	bad := `{"taskId":"` + child + `","parentTaskId":"` + parent + `","fromAgent":"swe-backend","toAgent":"swe-qa","acceptanceCriteria":["ok",42],"dueBy":"2026-02-10T12:00:00.000Z"}`
	ack := func(typ, accepted string) string {
		return env(typ, child, "swe-qa", `{"taskId":"`+child+`","accepted":`+accepted+`,"reason":"no context"}`)
	}
	return map[string][]string{
		aof.FaultStatusNoWorkLog:       {su(parent, "swe-backend", `"progress":"half"`)},
		aof.FaultInvalidTransitionLost: {su(parent, "swe-backend", `"status":"done","progress":"early"`)},
		aof.FaultStatusNeverApplied:    {su(parent, "swe-backend", `"status":"blocked","blockers":["key"]`)},
		aof.FaultRepeatTransition:      {su(parent, "swe-backend", `"status":"in-progress","notes":"still"`)},
		aof.FaultUnknownAsRejected:     {env("task.progress", parent, "swe-backend", `{}`)},
		aof.FaultSilentTaskNotFound:    {su("TASK-2026-02-09-099", "swe-backend", `"notes":"x"`)},
		aof.FaultReopenDone:            {env("completion.report", done, "swe-backend", completionDone)},
		aof.FaultAnySender:             {su(parent, "impostor", `"status":"blocked","blockers":["stop"]`)},
		aof.FaultNoReceivedLog:         {su(parent, "swe-backend", `"progress":"half"`)},
		aof.FaultNoCompletedEvent:      {env("completion.report", parent, "swe-backend", completionDone)},
		aof.FaultAcceptedBlocks:        {ack("handoff.accepted", "true")},
		aof.FaultRejectedNotBlocked:    {ack("handoff.rejected", "false")},
		aof.FaultNoParentCheck:         {env("handoff.request", child, "swe-backend", handoff(child, "TASK-2026-02-09-098"))},
		aof.FaultStrictCriteria:        {env("handoff.request", child, "swe-backend", bad)},
		aof.FaultResendDelegatesAgain:  {env("handoff.request", child, "swe-backend", handoff(child, parent)), env("handoff.request", child, "swe-backend", handoff(child, parent))},
		aof.FaultReclaimNoHeartbeat:    nil, // the poll alone: a task in progress without a heartbeat
		aof.FaultRunNotRunning:         nil, // the lease alone
	}
}()

// routerFault plays one fault of routerFaults both ways.
func routerFault(t *testing.T, name string) {
	play := func(fault string) string {
		r, _ := fixture(t)
		r.Fault = fault
		old := &aof.Task{ID: "TASK-2026-02-09-080", Title: "Old", Status: aofspec.InProgress}
		if err := r.Store.Create(old); err != nil {
			t.Fatal(err)
		}
		if fault == aof.FaultRunNotRunning || fault == "" && name == aof.FaultRunNotRunning {
			// The lease is the session's: a fresh one on its own data directory.
			s, err := aof.NewSession(clock.NewFake(start), aof.Config{Scratch: t.TempDir(), TaskID: "TASK-2026-02-09-090", AgentID: "swe-backend", Fault: fault}, nil)
			if err != nil {
				t.Fatal(err)
			}
			run, err := s.Store.ReadRun("TASK-2026-02-09-090")
			if err != nil {
				t.Fatal(err)
			}
			return "run " + run.Status
		}
		for _, l := range routerFaults[name] {
			r.Handle([]byte(l))
		}
		r.Poll()
		out := strings.Join(r.Store.Events.Types(), " ")
		for _, id := range []string{"TASK-2026-02-09-057", "TASK-2026-02-09-060", "TASK-2026-02-09-070", "TASK-2026-02-09-080"} {
			tk, err := r.Store.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			out += "\n" + id + " " + tk.Status
			if strings.Contains(tk.Body, "## Work Log") {
				out += " with a work log"
			}
		}
		return out
	}
	good, bad := play(""), play(name)
	if good == bad {
		t.Errorf("the fault changes nothing:\n%s", good)
	}
	t.Logf("correct:\n%s\nwith %s:\n%s", good, name, bad)
}
