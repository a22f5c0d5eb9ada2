package orchmsg

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/mockagent"
	ma "github.com/aopkit/aopkit/mockagent/orchmsg"
)

type scenario struct {
	name     string
	fault    string
	agent    func(t *testing.T) *mockagent.Agent // default: the mock agent
	tweak    func(*Config)
	state    string   // task state
	codes    []string // engine decisions
	errors   []string // error codes of the responses, in order
	sent     []string // notifications sent, in order
	viol     []string
	check    func(t *testing.T, r run)
	noGolden bool
}

func script(p map[string]any) func(*Config) {
	return func(c *Config) { c.Task.Payload = map[string]any{"mockagent": p} }
}

var (
	assigned  = "notify:task-assigned"
	cancelled = "notify:task-cancelled"
	shutdown  = "notify:shutdown"
)

var scenarios = []scenario{
	{name: "happy-path", state: "completed", sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			var types []string
			for _, q := range r.res.Requests {
				types = append(types, q.Type+":"+q.Outcome)
			}
			want := []string{"request:get-task:success", "request:query-agents:success", "request:query-tasks:success"}
			if !reflect.DeepEqual(types, want) {
				t.Errorf("requests %v, want %v", types, want)
			}
			if r.res.Exit.Code != 0 || r.res.Exit.Signal != "" {
				t.Errorf("exit %+v", r.res.Exit)
			}
			// Every response carries the id of its request as correlationId.
			reqs := map[string]bool{}
			for _, m := range messages(t, r, "agent") {
				if typ, _ := m["type"].(string); strings.HasPrefix(typ, "request:") {
					reqs[m["id"].(string)] = true
				}
			}
			n := 0
			for _, m := range messages(t, r, "orchestrator") {
				if typ, _ := m["type"].(string); strings.HasPrefix(typ, "response:") {
					n++
					if !reqs[m["correlationId"].(string)] {
						t.Errorf("response %v correlates to no request", m["id"])
					}
				}
			}
			if n != 3 {
				t.Errorf("%d responses, want 3", n)
			}
		}},
	{name: "ask-user-answered", tweak: func(c *Config) {
		script(map[string]any{"work_seconds": 12, "ask_user": true})(c)
		c.UserAnswers = []UserAnswer{{After: 12 * time.Second, Answer: "oauth"}}
	}, state: "completed", sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			if last := r.res.Requests[len(r.res.Requests)-1]; last.Type != "request:ask-user" || last.Outcome != "success" {
				t.Errorf("ask-user %+v", last)
			}
			if !strings.Contains(string(r.transcript), `"answer":"oauth"`) {
				t.Error("the answer is not in the transcript")
			}
		}},
	{name: "ask-user-timeout", tweak: script(map[string]any{"work_seconds": 12, "ask_user": true}),
		state: "completed", codes: []string{"TIMEOUT"}, errors: []string{"TIMEOUT"}, sent: []string{assigned, shutdown}},
	{name: "request-timeout-30s", agent: func(t *testing.T) *mockagent.Agent {
		return scripted(timedLine{0, `{"type":"request:ask-user","id":"req-1","timestamp":"2026-11-22T10:00:00Z","payload":{"question":"Proceed?"}}`},
			timedLine{31 * time.Second, `{"type":"event:progress","id":"evt-1","timestamp":"2026-11-22T10:00:31Z","payload":{"taskId":"task-1","progress":1,"message":"done"}}`})
	}, state: "completed", codes: []string{"TIMEOUT"}, errors: []string{"TIMEOUT"}, sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			if !strings.Contains(string(r.transcript), `"at":"2026-11-22T10:00:30.000Z","from":"orchestrator","protocol":"orchmsg","stream":"stdin","session":"request-timeout-30s","msg":{"type":"response:error"`) {
				t.Error("the ask-user without timeout must time out after 30 s")
			}
		}},
	{name: "not-found-and-invalid", agent: func(t *testing.T) *mockagent.Agent {
		return scripted(
			timedLine{0, `{"type":"request:get-task","id":"req-1","timestamp":"2026-11-22T10:00:00Z","payload":{"taskId":"task-nope"}}`},
			timedLine{0, `{"type":"request:query-agents","id":"req-2","timestamp":"2026-11-22T10:00:00Z","payload":{"role":"boss"}}`},
			timedLine{0, `{"type":"request:submit-task","id":"req-3","timestamp":"2026-11-22T10:00:00Z","payload":{"name":"x","dependencies":["task-nope"]}}`},
			timedLine{0, `{"type":"request:submit-task","id":"req-4","timestamp":"2026-11-22T10:00:00Z","payload":{"name":"x","priority":9}}`},
			timedLine{0, `{"type":"request:query-tasks","id":"req-5","timestamp":"2026-11-22T10:00:00Z","payload":{"limit":-1}}`},
			timedLine{time.Second, `{"type":"event:progress","id":"evt-1","timestamp":"2026-11-22T10:00:01Z","payload":{"taskId":"task-1","progress":1}}`})
	}, state: "completed", errors: []string{"NOT_FOUND", "INVALID_REQUEST", "NOT_FOUND", "INVALID_REQUEST", "INVALID_REQUEST"},
		sent: []string{assigned, shutdown}, viol: []string{"ORCH-SCHEMA-001"}},
	{name: "submit-task", tweak: script(map[string]any{"work_seconds": 12, "submit": true}), state: "completed",
		sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			if len(r.res.Submitted) != 1 || r.res.Submitted[0].Dependencies[0] != "task-1" {
				t.Errorf("submitted %+v", r.res.Submitted)
			}
		}},
	{name: "nested-delegation", fault: ma.FaultNestedDelegation, state: "completed", errors: []string{"UNAUTHORIZED"},
		sent: []string{assigned, shutdown}, viol: []string{"orchmsg/delegation/depth"},
		check: func(t *testing.T, r run) {
			if len(r.res.Submitted) != 3 {
				t.Errorf("%d tasks accepted, want 3 (depth 1..3)", len(r.res.Submitted))
			}
		}},
	{name: "task-timeout", fault: ma.FaultExceedTimeout, tweak: func(c *Config) { c.TaskTimeout = 42 * time.Second },
		state: "cancelled", codes: []string{"TASK_TIMEOUT"}, sent: []string{assigned, cancelled, shutdown},
		check: func(t *testing.T, r run) {
			if r.res.Exit.Code != 0 || r.res.HasCode("KILLED") {
				t.Errorf("a correct agent stops on cancellation and exits on shutdown: %+v", r.res.Exit)
			}
		}},
	{name: "cancellation", tweak: func(c *Config) {
		c.Notifications = []Notification{{At: 7500 * time.Millisecond, Type: cancelled, Reason: "Dependency failed"}}
	}, state: "cancelled", sent: []string{assigned, cancelled, shutdown}},
	{name: "ignore-cancel", fault: ma.FaultIgnoreCancel, tweak: func(c *Config) {
		c.Notifications = []Notification{{At: 7500 * time.Millisecond, Type: cancelled}}
		c.CancelGrace = 10 * time.Second
	}, state: "cancelled", sent: []string{assigned, cancelled, shutdown}, viol: []string{"orchmsg/cancel/stops-task"}},
	{name: "shutdown-mid-task", tweak: func(c *Config) {
		c.Notifications = []Notification{{At: 7500 * time.Millisecond, Type: shutdown, Reason: "Orchestrator stopping"}}
	}, state: "incomplete", sent: []string{assigned, shutdown},
		check: func(t *testing.T, r run) {
			if r.res.HasCode("KILLED") || r.res.Exit.Code != 0 {
				t.Errorf("the agent must exit on its own within the grace period: %+v %v", r.res.Exit, r.res.Codes)
			}
		}},
	{name: "ignore-shutdown", fault: ma.FaultIgnoreShutdown, state: "completed", codes: []string{"KILLED"},
		sent: []string{assigned, shutdown}, viol: []string{"orchmsg/shutdown/exit-within-grace"},
		check: func(t *testing.T, r run) {
			if r.res.Exit.Signal != "SIGKILL" {
				t.Errorf("exit %+v, want SIGKILL after the grace period", r.res.Exit)
			}
		}},
	{name: "hang", fault: ma.FaultHang, tweak: func(c *Config) { c.IdleTimeout = 20 * time.Second },
		state: "cancelled", codes: []string{"IDLE_TIMEOUT", "KILLED"}, sent: []string{assigned, cancelled, shutdown},
		viol: []string{"orchmsg/timeouts/keepalive", "orchmsg/shutdown/exit-within-grace"}},
	{name: "stop-heartbeats", fault: ma.FaultStopHeartbeats, tweak: func(c *Config) { c.IdleTimeout = 20 * time.Second },
		state: "cancelled", codes: []string{"IDLE_TIMEOUT"}, sent: []string{assigned, cancelled, shutdown},
		viol: []string{"orchmsg/timeouts/keepalive"}},
	{name: "crash-mid-task", fault: ma.FaultCrashMidTask, state: "incomplete", codes: []string{"CRASHED"},
		sent: []string{assigned}, viol: []string{"orchmsg/bind/exit-zero"}},
	{name: "crash-after-partial-report", fault: ma.FaultCrashAfterPartialReport, state: "incomplete", codes: []string{"CRASHED"},
		sent: []string{assigned}, viol: []string{"orchmsg/format/json", "orchmsg/bind/exit-zero"}},
	{name: "malformed-json", fault: ma.FaultMalformedJSON, state: "completed", sent: []string{assigned, shutdown},
		viol: []string{"orchmsg/format/json"}},
	{name: "wrong-correlation-id", fault: ma.FaultWrongCorrelationID, state: "completed",
		sent: []string{assigned, shutdown}, viol: []string{"ORCH-SEQ-003"}},
	{name: "duplicate-response", fault: ma.FaultDuplicateResponse, state: "completed", sent: []string{assigned, shutdown},
		viol: []string{"ORCH-SEQ-006"}},
	{name: "duplicate-id", fault: ma.FaultDuplicateID, state: "completed", sent: []string{assigned, shutdown},
		viol: []string{"ORCH-SEQ-003"}},
	{name: "no-completion-report", fault: ma.FaultNoCompletionReport, tweak: func(c *Config) { c.Deadline = 60 * time.Second },
		state: "incomplete", sent: []string{assigned, shutdown}, viol: []string{"orchmsg/completion/reported"}},
	{name: "empty-report", fault: ma.FaultEmptyReport, tweak: func(c *Config) { c.Deadline = 60 * time.Second },
		state: "incomplete", sent: []string{assigned, shutdown}, viol: []string{"ORCH-SCHEMA-001", "orchmsg/completion/reported"}},
	{name: "rate-flood", fault: ma.FaultRateFlood, state: "completed", codes: []string{"RATE_LIMITED"},
		errors: []string{"INTERNAL_ERROR", "INTERNAL_ERROR", "INTERNAL_ERROR"}, sent: []string{assigned, shutdown},
		viol: []string{"ORCH-SEQ-005"},
		check: func(t *testing.T, r run) {
			if r.res.Dropped < 50 {
				t.Errorf("dropped %d messages, want the flood over 100/s", r.res.Dropped)
			}
		}},
	{name: "oversize-payload", fault: ma.FaultOversizePayload, state: "completed", sent: []string{assigned, shutdown},
		viol: []string{"orchmsg/limit/message-size"}, noGolden: true},
	{name: "bad-timestamps", fault: ma.FaultBadTimestamps, state: "completed", sent: []string{assigned, shutdown},
		viol: []string{"ORCH-BASE-002"}},
	{name: "stdout-garbage", fault: ma.FaultStdoutGarbage, state: "completed", sent: []string{assigned, shutdown},
		viol: []string{"GEN-DETECT-001"},
		check: func(t *testing.T, r run) {
			if len(r.res.Logs) == 0 {
				t.Error("non-protocol output must be kept as logs")
			}
		}},
	{name: "unknown-message-type", fault: ma.FaultUnknownMessageType, state: "completed", errors: []string{"INVALID_MESSAGE_TYPE"},
		sent: []string{assigned, shutdown}, viol: []string{"ORCH-TYPE-001"}},
	{name: "invalid-request", fault: ma.FaultInvalidRequest, state: "completed", errors: []string{"INVALID_REQUEST"},
		sent: []string{assigned, shutdown}, viol: []string{"ORCH-SCHEMA-001"}},
	{name: "wrong-agent-id", fault: ma.FaultWrongAgentID, state: "completed",
		errors: []string{"UNAUTHORIZED", "UNAUTHORIZED", "UNAUTHORIZED"}, sent: []string{assigned, shutdown},
		viol: []string{"orchmsg/format/base-fields"}},
	{name: "foreign-task", fault: ma.FaultForeignTask, state: "completed", errors: []string{"UNAUTHORIZED"},
		sent: []string{assigned, shutdown}, viol: []string{"orchmsg/auth/own-tasks"}},
	{name: "missing-id", fault: ma.FaultMissingID, state: "completed", sent: []string{assigned, shutdown},
		viol: []string{"ORCH-BASE-001"}},
}

func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			cfg := baseConfig()
			if sc.tweak != nil {
				sc.tweak(&cfg)
			}
			agent := mock(t)
			if sc.agent != nil {
				agent = sc.agent(t)
			}
			r := runInProcess(t, sc.name, agent, sc.fault, cfg)
			if r.res.TaskState != sc.state {
				t.Errorf("task state %s, want %s", r.res.TaskState, sc.state)
			}
			if !reflect.DeepEqual(nonNil(r.res.Codes), nonNil(sc.codes)) {
				t.Errorf("codes %v, want %v", r.res.Codes, sc.codes)
			}
			if got := r.res.ErrorCodes(); !reflect.DeepEqual(nonNil(got), nonNil(sc.errors)) {
				t.Errorf("error responses %v, want %v", got, sc.errors)
			}
			if !reflect.DeepEqual(nonNil(r.res.Sent), nonNil(sc.sent)) {
				t.Errorf("notifications %v, want %v", r.res.Sent, sc.sent)
			}
			for _, v := range sc.viol {
				if !r.res.HasViolation(v) {
					t.Errorf("the engine did not see %s broken; violations %+v", v, r.res.Violations)
				}
			}
			if sc.fault == "" && sc.agent == nil && len(r.res.Violations) > 0 {
				t.Errorf("a correct agent broke rules: %+v", r.res.Violations)
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

func TestEveryFaultHasAScenario(t *testing.T) {
	used := map[string]bool{}
	for _, sc := range scenarios {
		used[sc.fault] = true
	}
	for _, f := range ma.Faults {
		if !used[f.Name] {
			t.Errorf("fault %s is never run against the engine", f.Name)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a := runInProcess(t, "rate-flood", mock(t), ma.FaultRateFlood, baseConfig())
	b := runInProcess(t, "rate-flood", mock(t), ma.FaultRateFlood, baseConfig())
	if string(a.transcript) != string(b.transcript) {
		t.Fatal("two runs of one scenario differ")
	}
}
