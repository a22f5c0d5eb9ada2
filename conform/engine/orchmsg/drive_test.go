package orchmsg

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks" // registers the checks the shipped scenarios name
	"github.com/aopkit/aopkit/fixtures/scenarios"
	"github.com/aopkit/aopkit/mockagent"
	ma "github.com/aopkit/aopkit/mockagent/orchmsg"
)

var (
	assigned  = "notify:task-assigned"
	cancelled = "notify:task-cancelled"
	shutdown  = "notify:shutdown"
)

// A case is one engine scenario: the agent (the mock agent with a fault, or a
// scripted one), the world, and the engine's decisions expected.
type engineCase struct {
	name      string
	fault     string
	agent     func() *mockagent.Agent // default: the mock agent
	tweaks    []tweak
	steps     []conform.Step
	deadline  time.Duration // default 120 s
	sent      []string      // notifications, in order
	errors    []string      // error codes of the responses, in order
	decisions []string      // "decision" events, in order
	signals   []string      // signals the harness sent
	exit      int
	check     func(t *testing.T, r run)
	noRef     bool // keep no reference transcript (too large)
}

var cases = []engineCase{
	{name: "happy-path", sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			want := []string{"request:get-task:success", "request:query-agents:success", "request:query-tasks:success"}
			if got := answers(r.sess); !reflect.DeepEqual(got, want) {
				t.Errorf("answers %v, want %v", got, want)
			}
			// get-task answers the scenario's task, with the engine's status.
			if !strings.Contains(string(r.transcript), `"task":{"assignedTo":"agent-under-test","dependencies":[],"description":"Write the greeting module."`) {
				t.Error("get-task does not answer the assigned task")
			}
		}},
	{name: "ask-user-answered", tweaks: []tweak{work(map[string]any{"work_seconds": 12, "ask_user": true}),
		world("user", map[string]any{"answers": []any{map[string]any{"after": "12s", "answer": "oauth"}}})},
		sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			if got := answers(r.sess); got[len(got)-1] != "request:ask-user:success" {
				t.Errorf("answers %v: the last is not ask-user's success", got)
			}
			if !strings.Contains(string(r.transcript), `"answer":"oauth"`) {
				t.Error("the user's answer is not in the transcript")
			}
		}},
	{name: "ask-user-timeout", tweaks: []tweak{work(map[string]any{"work_seconds": 12, "ask_user": true}), world("user", map[string]any{"silent": true})},
		sent: []string{assigned, shutdown}, errors: []string{"TIMEOUT"},
		check: func(t *testing.T, r run) {
			// The question's own timeout (60000 ms) applies.
			if !strings.Contains(string(r.transcript), `"at":"2000-01-01T00:01:00.000Z","from":"orchestrator","protocol":"orchmsg","stream":"stdin","session":"ask-user-timeout#1","msg":{"type":"response:error"`) {
				t.Error("the ask-user must time out 60 s after it was asked")
			}
		}},
	{name: "ask-user-default", tweaks: []tweak{work(map[string]any{"work_seconds": 2, "ask_user": true})},
		sent: []string{assigned, shutdown}, noRef: true,
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `"answer":"oauth"`) {
				t.Error("the default user answers with the first option")
			}
		}},
	{name: "request-timeout-30s", tweaks: []tweak{world("user", map[string]any{"silent": true})}, agent: func() *mockagent.Agent {
		return scripted(timedLine{0, `{"type":"request:ask-user","id":"req-1","timestamp":"2000-01-01T00:00:00Z","payload":{"question":"Proceed?"}}`},
			timedLine{31 * time.Second, `{"type":"event:progress","id":"evt-1","timestamp":"2000-01-01T00:00:31Z","payload":{"taskId":"task-1","progress":1,"message":"done"}}`})
	}, sent: []string{assigned, shutdown}, errors: []string{"TIMEOUT"},
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `"at":"2000-01-01T00:00:30.000Z","from":"orchestrator","protocol":"orchmsg","stream":"stdin","session":"request-timeout-30s#1","msg":{"type":"response:error"`) {
				t.Error("an ask-user without timeout must time out after 30 s")
			}
		}},
	{name: "not-found-and-invalid", agent: func() *mockagent.Agent {
		return scripted(
			timedLine{0, `{"type":"request:get-task","id":"req-1","timestamp":"2000-01-01T00:00:00Z","payload":{"taskId":"task-nope"}}`},
			timedLine{0, `{"type":"request:query-agents","id":"req-2","timestamp":"2000-01-01T00:00:00Z","payload":{"role":"boss"}}`},
			timedLine{0, `{"type":"request:submit-task","id":"req-3","timestamp":"2000-01-01T00:00:00Z","payload":{"type":"implementation","name":"x","dependencies":["task-nope"]}}`},
			// Priority 9 is only ORCH-PAYLOAD-002's warning: served, ranked 5.
			timedLine{0, `{"type":"request:submit-task","id":"req-4","timestamp":"2000-01-01T00:00:00Z","payload":{"type":"implementation","name":"x","priority":9}}`},
			// No task type: the schema and orchmsg/requests/payload require it.
			timedLine{0, `{"type":"request:submit-task","id":"req-4b","timestamp":"2000-01-01T00:00:00Z","payload":{"name":"x"}}`},
			timedLine{0, `{"type":"request:query-tasks","id":"req-5","timestamp":"2000-01-01T00:00:00Z","payload":{"limit":-1}}`},
			timedLine{0, `{"type":"request:ask-user","id":"req-6","timestamp":"2000-01-01T00:00:00Z","payload":{"question":"?","timeout":"soon"}}`},
			timedLine{0, `{"type":"request:get-task","id":7,"timestamp":"2000-01-01T00:00:00Z","payload":{"taskId":"task-1"}}`},
			timedLine{time.Second, `{"type":"event:progress","id":"evt-1","timestamp":"2000-01-01T00:00:01Z","payload":{"taskId":"task-1","progress":1}}`})
	}, sent: []string{assigned, shutdown}, decisions: []string{"not-answered"},
		errors: []string{"NOT_FOUND", "INVALID_REQUEST", "NOT_FOUND", "INVALID_REQUEST", "INVALID_REQUEST", "INVALID_REQUEST"},
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `"correlationId":"req-4","timestamp":"2000-01-01T00:00:00.000Z","payload":{"task":{"dependencies":[],"id":"task-sub-001","name":"x","priority":5,`) {
				t.Error("the submitted task of priority 9 is not answered as task-sub-001 of priority 5")
			}
		}},
	{name: "submit-task", tweaks: []tweak{work(map[string]any{"work_seconds": 12, "submit": true})}, sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `"payload":{"task":{"dependencies":["task-1"],"description":"Submitted by the mock agent.","id":"task-sub-001"`) {
				t.Error("the submitted task is not answered as task-sub-001 depending on task-1")
			}
		}},
	{name: "nested-delegation", fault: ma.FaultNestedDelegation, sent: []string{assigned, shutdown}, errors: []string{"UNAUTHORIZED"},
		check: func(t *testing.T, r run) {
			n := 0
			for _, a := range answers(r.sess) {
				if a == "request:submit-task:success" {
					n++
				}
			}
			if n != 3 {
				t.Errorf("%d submitted tasks accepted, want 3 (depth 1..3)", n)
			}
		}},
	{name: "task-timeout", fault: ma.FaultExceedTimeout, tweaks: []tweak{world("task_timeout", "42s")},
		sent: []string{assigned, cancelled, shutdown}, decisions: []string{"task-timeout"}},
	{name: "cancellation", steps: []conform.Step{step("start", 7500*time.Millisecond, "cancel")},
		sent: []string{assigned, cancelled, shutdown},
		check: func(t *testing.T, r run) {
			att := r.sess.Attempts[0]
			if got := att.ShutdownAt.Sub(att.CancelledAt); got != DefaultCancelGrace {
				t.Errorf("shutdown %s after the cancellation, want the cancel grace %s", got, DefaultCancelGrace)
			}
		}},
	{name: "ignore-cancel", fault: ma.FaultIgnoreCancel, steps: []conform.Step{step("start", 7500*time.Millisecond, "cancel")},
		tweaks: []tweak{world("cancel_grace", "10s")}, sent: []string{assigned, cancelled, shutdown}},
	{name: "shutdown-mid-task", steps: []conform.Step{step("start", 7500*time.Millisecond, "shutdown")}, sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			if got := r.sess.Attempts[0].End.Sub(r.sess.Attempts[0].ShutdownAt); got >= 2*time.Second {
				t.Errorf("the agent ran %s after notify:shutdown", got)
			}
		}},
	{name: "ignore-shutdown", fault: ma.FaultIgnoreShutdown, sent: []string{assigned, shutdown}, signals: []string{"SIGTERM"}, exit: -1,
		check: func(t *testing.T, r run) {
			att := r.sess.Attempts[0]
			if got := att.Terminated.Sub(att.ShutdownAt); got != 2*time.Second {
				t.Errorf("SIGTERM %s after notify:shutdown, want the 2 s grace period", got)
			}
		}},
	// A notify:shutdown while the agent's ask-user is unanswered goes unheeded:
	// SIGTERM at the end of the grace period.
	{name: "block-on-request", fault: ma.FaultBlockOnRequest, tweaks: []tweak{work(map[string]any{"work_seconds": 12, "ask_user": true}), world("user", map[string]any{"silent": true})},
		steps: []conform.Step{step("start", 5*time.Second, "shutdown")}, sent: []string{assigned, shutdown}, signals: []string{"SIGTERM"}, exit: -1, noRef: true,
		check: func(t *testing.T, r run) {
			att := r.sess.Attempts[0]
			if got := att.Terminated.Sub(att.ShutdownAt); got != 2*time.Second {
				t.Errorf("SIGTERM %s after notify:shutdown, want the 2 s grace period", got)
			}
		}},
	{name: "hang", fault: ma.FaultHang, tweaks: []tweak{world("idle_timeout", "20s")},
		sent: []string{assigned, cancelled, shutdown}, decisions: []string{"idle-timeout"}, signals: []string{"SIGTERM"}, exit: -1},
	{name: "stop-heartbeats", fault: ma.FaultStopHeartbeats, tweaks: []tweak{world("idle_timeout", "20s")},
		sent: []string{assigned, cancelled, shutdown}, decisions: []string{"idle-timeout"}},
	{name: "crash-mid-task", fault: ma.FaultCrashMidTask, sent: []string{assigned}, exit: 1},
	{name: "crash-after-partial-report", fault: ma.FaultCrashAfterPartialReport, sent: []string{assigned}, exit: 1},
	{name: "malformed-json", fault: ma.FaultMalformedJSON, sent: []string{assigned, shutdown}},
	// The reused request id is not answered: the agent's own 35 s wait ends it.
	{name: "wrong-correlation-id", fault: ma.FaultWrongCorrelationID, sent: []string{assigned, shutdown}, decisions: []string{"not-answered"}},
	{name: "duplicate-response", fault: ma.FaultDuplicateResponse, sent: []string{assigned, shutdown}},
	{name: "duplicate-id", fault: ma.FaultDuplicateID, sent: []string{assigned, shutdown}},
	{name: "no-completion-report", fault: ma.FaultNoCompletionReport, deadline: 60 * time.Second,
		sent: []string{assigned}, signals: []string{"SIGTERM"}, exit: -1},
	{name: "empty-report", fault: ma.FaultEmptyReport, deadline: 60 * time.Second,
		sent: []string{assigned}, signals: []string{"SIGTERM"}, exit: -1},
	{name: "rate-flood", fault: ma.FaultRateFlood, sent: []string{assigned, shutdown},
		errors: []string{"INTERNAL_ERROR", "INTERNAL_ERROR", "INTERNAL_ERROR"}, decisions: []string{"rate-limited"}},
	{name: "oversize-payload", fault: ma.FaultOversizePayload, sent: []string{assigned, shutdown}, decisions: []string{"dropped"}, noRef: true},
	{name: "bad-timestamps", fault: ma.FaultBadTimestamps, sent: []string{assigned, shutdown}},
	{name: "stdout-garbage", fault: ma.FaultStdoutGarbage, sent: []string{assigned, shutdown}},
	{name: "unknown-message-type", fault: ma.FaultUnknownMessageType, sent: []string{assigned, shutdown}, errors: []string{"INVALID_MESSAGE_TYPE"}},
	{name: "invalid-request", fault: ma.FaultInvalidRequest, sent: []string{assigned, shutdown}, errors: []string{"INVALID_REQUEST"}},
	{name: "wrong-agent-id", fault: ma.FaultWrongAgentID, sent: []string{assigned, shutdown},
		errors: []string{"UNAUTHORIZED", "UNAUTHORIZED", "UNAUTHORIZED"}},
	{name: "foreign-task", fault: ma.FaultForeignTask, sent: []string{assigned, shutdown}, errors: []string{"UNAUTHORIZED"}},
	{name: "missing-id", fault: ma.FaultMissingID, sent: []string{assigned, shutdown}},
	// Counter ids ("req-2") are strings: the engine answers them as any other.
	{name: "counter-ids", fault: ma.FaultCounterIDs, sent: []string{assigned, shutdown}},
	// The agent stops at notify:shutdown, in time, but exits 1: no signal, the
	// exit is the agent's (aopconform's orchmsg/bind/exit-zero judges it).
	{name: "exit-nonzero", fault: ma.FaultExitNonzero, sent: []string{assigned, shutdown}, exit: 1,
		check: func(t *testing.T, r run) {
			if got := r.sess.Attempts[0].End.Sub(r.sess.Attempts[0].ShutdownAt); got >= 2*time.Second {
				t.Errorf("the agent ran %s after notify:shutdown", got)
			}
		}},
	// event:log lines with timestamp twice are valid JSON to the engine: taken
	// as any log, and recorded verbatim (aoplint's GEN-JSON-002 finds the
	// duplicate member in the transcript).
	{name: "duplicate-key", fault: ma.FaultDuplicateKey, sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `"msg":{"timestamp":"2000-01-01T00:00:00.000Z","type":"event:log","id":`) {
				t.Error("the first event:log is not recorded with its duplicate timestamp")
			}
		}},
}

// TestDrive plays each case against the engine on virtual time and checks the
// engine's decisions; the transcript is the case's reference transcript.
func TestDrive(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			agent := mock(t)
			if c.agent != nil {
				agent = c.agent()
			}
			deadline := c.deadline
			if deadline == 0 {
				deadline = 120 * time.Second
			}
			r := play(t, scenario(c.name, deadline, c.steps, c.tweaks...), agent, c.fault, "")
			if r.err != nil {
				t.Fatalf("harness error: %v", r.err)
			}
			expect(t, "notifications", notifications(r.sess), c.sent)
			expect(t, "error responses", errorCodes(r.sess), c.errors)
			expect(t, "decisions", decisions(r.sess), c.decisions)
			expect(t, "signals", signals(r.sess), c.signals)
			if ex := r.sess.Attempts[0].Exit; ex.Code != c.exit {
				t.Errorf("exit %+v, want code %d", ex, c.exit)
			}
			if c.check != nil {
				c.check(t, r)
			}
			if !c.noRef {
				reference(t, c.name, r.transcript)
			}
		})
	}
}

func expect(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s %v, want %v", what, got, want)
	}
}

// TestEveryFaultHasACase: every mock agent fault is played against the engine.
func TestEveryFaultHasACase(t *testing.T) {
	used := map[string]bool{}
	for _, c := range cases {
		used[c.fault] = true
	}
	for _, f := range ma.Agent.Faults.List() {
		if !used[f.Name] {
			t.Errorf("fault %s is never played against the engine", f.Name)
		}
	}
}

// TestShippedScenarios plays every shipped orchmsg scenario with the correct mock
// agent: the engine's decisions are the reference transcripts scenario-<id>.
func TestShippedScenarios(t *testing.T) {
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sc := range all {
		if sc.Protocol != Protocol {
			continue
		}
		n++
		t.Run(sc.ID, func(t *testing.T) {
			t.Parallel()
			r := play(t, sc, mock(t), "", "")
			if r.err != nil {
				t.Fatalf("harness error: %v", r.err)
			}
			att := r.sess.Attempts[0]
			if att.Exit.Code != 0 && att.Terminated.IsZero() {
				t.Errorf("exit %+v", att.Exit)
			}
			if sent := notifications(r.sess); len(sent) == 0 || sent[0] != assigned {
				t.Errorf("notifications %v", sent)
			}
			reference(t, "correct-"+strings.TrimPrefix(sc.ID, "orchmsg-"), r.transcript)
		})
	}
	if n == 0 {
		t.Fatal("no shipped orchmsg scenario")
	}
}

// TestEngineFaults: each fault of the engine changes its decision as named.
func TestEngineFaults(t *testing.T) {
	t.Run(FaultWrongCorrelationID, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultWrongCorrelationID, 60*time.Second, nil, work(map[string]any{"work_seconds": 2})), mock(t), "", FaultWrongCorrelationID)
		reqs := map[string]bool{}
		for _, m := range messages(r.sess, "agent") {
			if id, _ := m["id"].(string); strings.HasPrefix(m["type"].(string), "request:") {
				reqs[id] = true
			}
		}
		n := 0
		for _, m := range messages(r.sess, "orchestrator") {
			if c, ok := m["correlationId"].(string); ok {
				n++
				if reqs[c] {
					t.Errorf("response %v correlates to a request", m["id"])
				}
			}
		}
		if n == 0 {
			t.Error("no response sent")
		}
	})
	t.Run(FaultNoShutdownGrace, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultNoShutdownGrace, 60*time.Second, nil, work(map[string]any{"work_seconds": 2})), mock(t), ma.FaultIgnoreShutdown, FaultNoShutdownGrace)
		att := r.sess.Attempts[0]
		if att.ShutdownAt.IsZero() || !att.Terminated.Equal(att.ShutdownAt) {
			t.Errorf("SIGTERM at %v, notify:shutdown at %v: want both at once", att.Terminated, att.ShutdownAt)
		}
		// The correct engine waits for the grace period (TestDrive/ignore-shutdown).
	})
	t.Run(FaultIgnoreRateLimit, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultIgnoreRateLimit, 60*time.Second, nil), mock(t), ma.FaultRateFlood, FaultIgnoreRateLimit)
		if d := decisions(r.sess); len(d) != 0 {
			t.Errorf("decisions %v, want none", d)
		}
		if e := errorCodes(r.sess); len(e) != 0 {
			t.Errorf("error responses %v, want none", e)
		}
	})
	t.Run(FaultWrongTaskID, func(t *testing.T) {
		sc := scenario("engine-"+FaultWrongTaskID, 60*time.Second, nil)
		var given struct {
			TaskID string `json:"taskId"`
		}
		json.Unmarshal(sc.Task, &given)
		r := play(t, sc, mock(t), "", FaultWrongTaskID)
		ms := messages(r.sess, "orchestrator")
		if len(ms) == 0 || ms[0]["type"] != "notify:task-assigned" {
			t.Fatalf("first message %v, want notify:task-assigned", ms)
		}
		p, _ := ms[0]["payload"].(map[string]any)
		if id, _ := p["taskId"].(string); given.TaskID == "" || id == given.TaskID {
			t.Errorf("assigned taskId %q, given %q: want another", id, given.TaskID)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		r := play(t, scenario("engine-unknown", 60*time.Second, nil), mock(t), "", "no-such-fault")
		if r.err == nil || !strings.Contains(r.err.Error(), "no fault") {
			t.Errorf("error %v, want an unknown fault named", r.err)
		}
	})
	t.Run(FaultSilentCancel, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultSilentCancel, 60*time.Second, nil, work(map[string]any{"work_seconds": 30}), world("task_timeout", 500)), mock(t), "", FaultSilentCancel)
		if n := notifications(r.sess); slices.Contains(n, "notify:task-cancelled") || !slices.Contains(n, "notify:shutdown") {
			t.Errorf("notifications %v: want a shutdown and no notify:task-cancelled", n)
		}
		if d := decisions(r.sess); !slices.Contains(d, "cancelled-silently") {
			t.Errorf("decisions %v", d)
		}
	})
	t.Run(FaultInternalErrorCodes, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultInternalErrorCodes, 60*time.Second, nil), mock(t), ma.FaultForeignTask, FaultInternalErrorCodes)
		if e := errorCodes(r.sess); first(e) != "INTERNAL_ERROR" {
			t.Errorf("error codes %v, want INTERNAL_ERROR first", e)
		}
	})
	t.Run(FaultIgnoreQueryFilters, func(t *testing.T) {
		other := map[string]any{"id": "task-other", "name": "n", "status": "running", "assignedTo": "agent-2", "dependencies": []any{}}
		r := play(t, scenario("engine-"+FaultIgnoreQueryFilters, 60*time.Second, nil, world("tasks", []any{other})), mock(t), "", FaultIgnoreQueryFilters)
		listed := false
		for _, m := range messages(r.sess, "orchestrator") {
			p, _ := m["payload"].(map[string]any)
			ts, _ := p["tasks"].([]any)
			for _, tk := range ts {
				listed = listed || tk.(map[string]any)["id"] == "task-other"
			}
		}
		if !listed {
			t.Error("query-tasks (status queued) did not list another agent's running task")
		}
	})
	t.Run(FaultNoRequestTimeout, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultNoRequestTimeout, 120*time.Second, nil, work(map[string]any{"work_seconds": 1, "ask_user": true}), world("user", map[string]any{"silent": true})), mock(t), "", FaultNoRequestTimeout)
		if e := errorCodes(r.sess); slices.Contains(e, "TIMEOUT") {
			t.Errorf("error codes %v: want no TIMEOUT", e)
		}
	})
	t.Run(FaultUnknownTypeInvalidRequest, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultUnknownTypeInvalidRequest, 60*time.Second, nil), mock(t), ma.FaultUnknownMessageType, FaultUnknownTypeInvalidRequest)
		if e := errorCodes(r.sess); first(e) != "INVALID_REQUEST" {
			t.Errorf("error codes %v, want INVALID_REQUEST first", e)
		}
	})
	t.Run(FaultCannedAnswer, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultCannedAnswer, 60*time.Second, nil, work(map[string]any{"work_seconds": 1, "ask_user": true})), mock(t), "", FaultCannedAnswer)
		found := false
		for _, m := range messages(r.sess, "orchestrator") {
			p, _ := m["payload"].(map[string]any)
			found = found || p["answer"] == "yes"
		}
		if !found {
			t.Error("no canned answer \"yes\"")
		}
	})
	t.Run(FaultNoTimestamp, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultNoTimestamp, 60*time.Second, nil), mock(t), "", FaultNoTimestamp)
		for _, m := range messages(r.sess, "orchestrator") {
			if typ, _ := m["type"].(string); strings.HasPrefix(typ, "notify:") && m["timestamp"] != "" {
				t.Errorf("%s with timestamp %v", typ, m["timestamp"])
			}
		}
	})
	t.Run(FaultParseChunks, func(t *testing.T) {
		// Lines of one write arrive in one read: the request after the log
		// line is dropped, never answered.
		sc := func() *conform.Scenario {
			return scenario("engine-"+FaultParseChunks, 60*time.Second, nil, work(map[string]any{"work_seconds": 0.5, "one_write": true}))
		}
		if r := play(t, sc(), mock(t), "", ""); slices.Contains(decisions(r.sess), "dropped") {
			t.Errorf("without the fault: decisions %q drop a line", decisions(r.sess))
		}
		r := play(t, sc(), mock(t), "", FaultParseChunks)
		if !slices.Contains(decisions(r.sess), "dropped") {
			t.Errorf("decisions %q: nothing dropped", decisions(r.sess))
		}
	})
	t.Run(FaultReuseIDs, func(t *testing.T) {
		r := play(t, scenario("engine-"+FaultReuseIDs, 60*time.Second, nil), mock(t), "", FaultReuseIDs)
		ids := map[any]int{}
		for _, m := range messages(r.sess, "orchestrator") {
			ids[m["id"]]++
		}
		if len(ids) != 1 {
			t.Errorf("ids %v: want one id for every message", ids)
		}
	})
	if len(Faults()) != 13 {
		t.Errorf("%d faults; each needs a test here", len(Faults()))
	}
}

// TestTeam: several agents in one run. agent-under-test (a planner) submits a
// follow-up for a worker, depending on its own task; the engine queues it and,
// once task-1 is completed, assigns it to the idle worker agent-2, while the
// reviewer agent-3 works on its own task from the start; when no task runs, every
// agent is shut down.
func TestTeam(t *testing.T) {
	sc := scenario("team", 120*time.Second, nil, work(map[string]any{"work_seconds": 6, "submit": true}),
		world("role", "planner"),
		world("team", []any{
			map[string]any{"id": "agent-2", "role": "worker", "capabilities": []any{"go"}},
			map[string]any{"id": "agent-3", "role": "reviewer", "task": map[string]any{"id": "task-r", "name": "Review", "requiredRole": "reviewer",
				"payload": map[string]any{"mockagent": map[string]any{"work_seconds": 3}}}},
		}))
	r := play(t, sc, mock(t), "", "")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if n := len(r.sess.Attempts); n != 3 {
		t.Fatalf("%d agents launched, want 3", n)
	}
	for i, want := range [][]string{
		{assigned + " task-1", shutdown},
		{assigned + " task-sub-001", shutdown},
		{assigned + " task-r", shutdown},
	} {
		att := r.sess.Attempts[i]
		expect(t, fmt.Sprintf("notifications to agent %d", i+1), sentTo(r.sess, i+1), want)
		if att.Exit.Code != 0 || !att.Terminated.IsZero() {
			t.Errorf("agent %d: exit %+v, terminated %v", i+1, att.Exit, att.Terminated)
		}
	}
	// The follow-up is assigned when task-1 is completed, not before.
	done1, assigned2 := firstAt(r.sess, 1, "agent", `"progress":1`), firstAt(r.sess, 2, "orchestrator", `"task-sub-001"`)
	if done1.IsZero() || assigned2.Before(done1) {
		t.Errorf("task-sub-001 assigned at %v, task-1 completed at %v", assigned2, done1)
	}
	// agent-2 may read the task assigned to it, and agent-under-test saw it idle.
	if !strings.Contains(string(r.transcript), `"session":"team#2","msg":{"type":"response:success"`) {
		t.Error("agent-2's get-task was not answered with success")
	}
	if e := errorCodes(r.sess); len(e) != 0 {
		t.Errorf("error responses %v", e)
	}
	reference(t, "correct-team", r.transcript)
}

// sentTo lists "type taskId" of the notifications sent to one agent (attempt).
func sentTo(s *conform.Session, attempt int) []string {
	var out []string
	for _, r := range s.Records {
		if r.From != "orchestrator" || r.Attempt != attempt || r.Msg == nil {
			continue
		}
		m := r.Obj()
		typ, _ := m["type"].(string)
		if !strings.HasPrefix(typ, "notify:") {
			continue
		}
		if p, _ := m["payload"].(map[string]any); typ == assigned {
			typ += " " + fmt.Sprint(p["taskId"])
		}
		out = append(out, typ)
	}
	return out
}

// firstAt is the time of the first record of one agent (attempt) and sender
// whose message contains text.
func firstAt(s *conform.Session, attempt int, from conform.Actor, text string) time.Time {
	for _, r := range s.Records {
		if r.Attempt == attempt && r.From == from && strings.Contains(string(r.Msg), text) {
			return r.Time
		}
	}
	return time.Time{}
}

// TestTeamRoles: a follow-up for a worker goes to the only worker, the agent
// that submitted it, once its own task is completed; the idle reviewer only gets
// the shutdown.
func TestTeamRoles(t *testing.T) {
	sc := scenario("team-roles", 120*time.Second, nil, work(map[string]any{"work_seconds": 2, "submit": true}),
		world("team", []any{map[string]any{"id": "agent-2", "role": "reviewer"}}))
	r := play(t, sc, mock(t), "", "")
	if r.err != nil {
		t.Fatal(r.err)
	}
	expect(t, "notifications to agent-under-test", sentTo(r.sess, 1), []string{assigned + " task-1", assigned + " task-sub-001", shutdown})
	expect(t, "notifications to agent-2", sentTo(r.sess, 2), []string{shutdown})
	for _, att := range r.sess.Attempts {
		if att.Exit.Code != 0 {
			t.Errorf("exit %+v", att.Exit)
		}
	}
}
