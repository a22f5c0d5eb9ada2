package checks

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// session builds a recorded session from records; times are t0 + offset.
type sessionBuilder struct {
	s  *conform.Session
	t0 time.Time
}

func newSession(attempts ...*conform.Attempt) *sessionBuilder {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for i, a := range attempts {
		a.N = i + 1
		if a.Start.IsZero() {
			a.Start = t0
		}
	}
	return &sessionBuilder{s: &conform.Session{Scenario: &conform.Scenario{ID: "s"}, Scale: 1, Attempts: attempts}, t0: t0}
}

func (b *sessionBuilder) add(from conform.Actor, stream, key string, at time.Duration, msg string) *sessionBuilder {
	r := conform.Record{Seq: len(b.s.Records) + 1, From: from, Stream: stream, Key: key, Time: b.t0.Add(at), Attempt: 1}
	if msg != "" {
		r.Msg = json.RawMessage(msg)
	}
	b.s.Records = append(b.s.Records, r)
	return b
}

func run(t *testing.T, id string, s *conform.Session) conform.Outcome {
	t.Helper()
	c := conform.LookupCheck(id)
	if c == nil {
		t.Fatalf("no check %s", id)
	}
	return c.Run(s)
}

// TestReusedExecutionIDOneFailure: an agent that reuses an executionId fails
// aos/4.6/unique-execution-ids; the checks that tell tool calls apart by
// executionId are NOT-JUDGED and name it, instead of failing with a misleading
// message (before: all-tools-requested failed with "the tool call requests do not
// follow the work script" and modify-enforced through lint AOS-SEQ-008).
func TestReusedExecutionIDOneFailure(t *testing.T) {
	t.Parallel()
	call := func(id int, exec, tool string) string {
		return `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"steps/toolCallRequest","params":{"toolCallRequest":{"executionId":"` + exec + `","toolId":"` + tool + `"}}}`
	}
	b := newSession(&conform.Attempt{Input: json.RawMessage(`{"tools":[{"name":"run_shell"},{"name":"read_file"}]}`)}).
		add("agent", "http", "steps/toolCallRequest", 10*time.Millisecond, call(1, "exec-1", "run_shell")).
		add("agent", "stdout", "executed", 20*time.Millisecond, `{"executed":{"executionId":"exec-1","name":"run_shell","arguments":{"command":"ls build"}}}`).
		add("agent", "http", "steps/toolCallRequest", 30*time.Millisecond, call(2, "exec-1", "read_file"))
	conform.FactAOSDecisions.Set(b.s, []conform.AOSDecision{
		{Seq: 1, ExecutionID: "exec-1", Tool: "run_shell", Decision: "modify", Arguments: json.RawMessage(`{"command":"ls build"}`)},
		{Seq: 3, ExecutionID: "exec-1", Tool: "read_file", Decision: "error"},
	})
	if o := run(t, "aos/4.6/unique-execution-ids", b.s); o.Verdict != conform.Fail {
		t.Errorf("unique-execution-ids: %s %s, want FAIL", o.Verdict, o.Message)
	}
	wantNotJudged(t, b.s, "aos/4.6/unique-execution-ids", []string{"aos/bind/all-tools-requested", "aos/5.1/modify-enforced", "aos/5.1/deny-enforced", "aos/5.2/fail-closed", "aos/4.6/request-before-execute", "aos/4.6/result-after-execute"}...)
}

// TestNoResponseOneFailure: an aop2 agent that crashes before its RESPONSE fails
// aop2/5/final-response; every check that reads the RESPONSE is NOT-JUDGED (before:
// seven checks failed with "the agent sent no RESPONSE").
func TestNoResponseOneFailure(t *testing.T) {
	t.Parallel()
	task := `{"session":{"session_id":"S"},"task":{"task_id":"T","attempt":2,"budgets":{"max_cost_usd":1}},"target":{"model":"m"},"guard_rails":{"require_final_signal":true,"require_minimal_report":true}}`
	a := &conform.Attempt{Input: json.RawMessage(task)}
	a.Exit.Code = 1
	b := newSession(&conform.Attempt{Input: json.RawMessage(task)}, a).
		add("agent", "stdout", "EVENT/PROGRESS_UPDATE", 10*time.Millisecond, `{"message_type":"EVENT","event":"PROGRESS_UPDATE"}`)
	if o := run(t, "aop2/5/final-response", b.s); o.Verdict != conform.Fail {
		t.Errorf("final-response: %s %s, want FAIL", o.Verdict, o.Message)
	}
	wantNotJudged(t, b.s, "aop2/5/final-response", []string{"aop2/1.2/response-ids", "aop2/5/final-signal", "aop2/5/minimal-report", "aop2/12/within-budget",
		"aop2/4/response-size", "aop2/9/fallback-model", "aop2/11/finish-within-timeout", "aop2/5/artifacts-honest", "aop2/recovery/honest-attempt"}...)
}

// TestNoAgentBlockOneFailure: a RESPONSE without its required agent block fails
// aop2/5/final-response ("missing: agent"); aop2/9/fallback-model, which reads
// the model from that block, is NOT-JUDGED under it (before: it failed too,
// comparing the dispatched model with "" as if the agent had reported an empty
// one: two FAILURES blocks for one omission, found by a Node.js agent written
// from the docs, testdata/agents/aop2.mjs bug-no-agent). When the block is
// missing only from an earlier attempt's RESPONSE, which final-response does
// not read, fallback-model fails by itself.
func TestNoAgentBlockOneFailure(t *testing.T) {
	t.Parallel()
	task := json.RawMessage(`{"session":{"session_id":"S"},"task":{"task_id":"T"},"target":{"provider":"P","model":"m"}}`)
	noAgent := `{"message_type":"RESPONSE","session_id":"S","task_id":"T","task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"ok"}}`
	complete := `{"message_type":"RESPONSE","session_id":"S","task_id":"T","agent":{"name":"a","provider":"P","model":"m"},"task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"ok"}}`
	b := newSession(&conform.Attempt{Input: task}).add("agent", "stdout", "RESPONSE", 10*time.Millisecond, noAgent)
	if o := run(t, "aop2/5/final-response", b.s); o.Verdict != conform.Fail || o.Actual != "missing: agent" {
		t.Errorf("final-response: %s %s (actual %q), want FAIL, missing: agent", o.Verdict, o.Message, o.Actual)
	}
	wantNotJudged(t, b.s, "aop2/5/final-response", "aop2/9/fallback-model")

	b = newSession(&conform.Attempt{Input: task}, &conform.Attempt{Input: task}).add("agent", "stdout", "RESPONSE", 10*time.Millisecond, noAgent)
	b.add("agent", "stdout", "RESPONSE", 20*time.Millisecond, complete)
	b.s.Records[1].Attempt = 2
	var rs []conform.Result
	for _, id := range []string{"aop2/5/final-response", "aop2/9/fallback-model"} {
		o := run(t, id, b.s)
		rs = append(rs, conform.Result{Check: id, Scenario: "s", Verdict: o.Verdict, DependsOn: o.DependsOn, Message: o.Message})
	}
	conform.ResolveDependencies(rs)
	if rs[0].Verdict != conform.Pass || rs[1].Verdict != conform.Fail || !strings.Contains(rs[1].Message, "attempt 1's RESPONSE has no agent block") {
		t.Errorf("agent block missing from attempt 1 only: final-response %s, fallback-model %s %q; want PASS, FAIL naming attempt 1", rs[0].Verdict, rs[1].Verdict, rs[1].Message)
	}
}

// TestShutdownNonZeroExitOneFailure: an orchmsg agent that exits 1 on
// notify:shutdown, within the grace period, fails orchmsg/bind/exit-zero;
// orchmsg/shutdown/exit-within-grace, whose grace it kept, is NOT-JUDGED under
// it (before: both failed, "expected exit 0, actual exit 1", in the same
// scenarios: found by testdata/agents/orchmsg.mjs with leave(1)). When exit-zero
// fails nowhere (deselected), exit-within-grace fails naming the exit itself.
func TestShutdownNonZeroExitOneFailure(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	a := &conform.Attempt{ShutdownAt: t0.Add(time.Second), ShutdownFor: 2 * time.Second, End: t0.Add(1100 * time.Millisecond)}
	a.Exit.Code = 1
	s := newSession(a).s
	if o := run(t, "orchmsg/bind/exit-zero", s); o.Verdict != conform.Fail || o.Actual != "exit 1" {
		t.Errorf("exit-zero: %s %s (actual %q), want FAIL, exit 1", o.Verdict, o.Message, o.Actual)
	}
	wantNotJudged(t, s, "orchmsg/bind/exit-zero", "orchmsg/shutdown/exit-within-grace")
	o := run(t, "orchmsg/shutdown/exit-within-grace", s)
	rs := []conform.Result{{Check: "orchmsg/shutdown/exit-within-grace", Scenario: "s", Verdict: o.Verdict, DependsOn: o.DependsOn, Message: o.Message}}
	conform.ResolveDependencies(rs)
	if rs[0].Verdict != conform.Fail || !strings.Contains(rs[0].Message, "non-zero: exit 1") {
		t.Errorf("exit-zero not judged: exit-within-grace %s %q; want FAIL naming exit 1", rs[0].Verdict, rs[0].Message)
	}
	ok := &conform.Attempt{ShutdownAt: t0.Add(time.Second), ShutdownFor: 2 * time.Second, End: t0.Add(1100 * time.Millisecond)}
	if o := run(t, "orchmsg/shutdown/exit-within-grace", newSession(ok).s); o.Verdict != conform.Pass {
		t.Errorf("exit 0 in time: %s %s, want PASS", o.Verdict, o.Message)
	}
}

// TestSlowSIGTERMExit: a slow exit after SIGTERM says how long the agent ran after
// it and that it reacted; an agent that wrote nothing is told so; a pass says how
// long the exit took.
func TestSlowSIGTERMExit(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	killed := &conform.Attempt{Terminated: t0.Add(time.Second), Killed: t0.Add(3 * time.Second), End: t0.Add(3 * time.Second)}
	killed.Exit.Signal = "SIGKILL"
	b := newSession(killed).add("agent", "stdout", "EVENT/PROGRESS_UPDATE", 2500*time.Millisecond, `{}`)
	o := run(t, "aop2/bind/stop-on-sigterm", b.s)
	for _, want := range []string{"still running 2s after SIGTERM", "reacted (1 lines after SIGTERM, the last 1.5s after it) but did not exit in time"} {
		if o.Verdict != conform.Fail || !strings.Contains(o.Message, want) {
			t.Errorf("slow exit: %s %q, want FAIL saying %q", o.Verdict, o.Message, want)
		}
	}
	silent := &conform.Attempt{Terminated: t0.Add(time.Second), Killed: t0.Add(3 * time.Second), End: t0.Add(3 * time.Second)}
	silent.Exit.Signal = "SIGKILL"
	o = run(t, "aos/bind/stop-on-sigterm", newSession(silent).s)
	if o.Verdict != conform.Fail || !strings.Contains(o.Message, "still running 2s after SIGTERM") || !strings.Contains(o.Message, "wrote nothing after SIGTERM") {
		t.Errorf("ignored SIGTERM: %s %q", o.Verdict, o.Message)
	}
	quick := &conform.Attempt{Terminated: t0.Add(time.Second), End: t0.Add(1340 * time.Millisecond)}
	o = run(t, "orchmsg/bind/stop-on-sigterm", newSession(quick).s)
	if o.Verdict != conform.Pass || !strings.Contains(o.Message, "exited 340ms after SIGTERM") {
		t.Errorf("quick exit: %s %q", o.Verdict, o.Message)
	}
}

// TestCutShortReportOneFailure: an aop-output report cut short by a crash fails
// aop-output/format/markers; the checks that read a marker it never wrote are
// NOT-JUDGED (before: status, timestamps, summary-limit and details/file failed
// too), and those that read what it did write are still judged.
func TestCutShortReportOneFailure(t *testing.T) {
	t.Parallel()
	a := &conform.Attempt{Input: json.RawMessage(`{"task":"x","task_type":"build"}`)}
	a.Exit.Code = 1
	b := newSession(a)
	for i, l := range []string{"[AOP:START] 2026-11-24T10:00:00Z", "[AOP:TASK] Build the release", "[AOP:SUMMARY]"} {
		text := l
		b.s.Records = append(b.s.Records, conform.Record{Seq: i + 1, From: "agent", Stream: "stdout", Text: &text, Attempt: 1})
	}
	if o := run(t, "aop-output/format/markers", b.s); o.Verdict != conform.Fail {
		t.Errorf("markers: %s %s, want FAIL", o.Verdict, o.Message)
	}
	if o := run(t, "aop-output/format/task-length", b.s); o.Verdict != conform.Pass {
		t.Errorf("task-length: %s %s, want PASS (the TASK line is there)", o.Verdict, o.Message)
	}
	wantNotJudged(t, b.s, "aop-output/format/markers", []string{"aop-output/format/status", "aop-output/format/timestamps", "aop-output/format/summary-limit", "aop-output/details/file"}...)
}

// TestNoCompletionOneFailure: an aof agent without a completion.report fails
// aof/completion/reported; the checks that read the report's payload are NOT-JUDGED.
func TestNoCompletionOneFailure(t *testing.T) {
	t.Parallel()
	b := newSession(&conform.Attempt{})
	wantNotJudged(t, b.s, "aof/completion/reported", []string{"aof/completion/payload", "aof/completion/summary-exists"}...)
}

// TestRejectedRequestsOneFailure: tool call requests the guardian rejected as
// invalid JSON-RPC (jsonrpc "1.0") get no decision: the checks that need one are
// NOT-JUDGED on aos/3.12.1/jsonrpc-request (before: all-tools-requested failed with
// "the tool call requests do not follow the work script", deny-enforced was
// NOT-APPLICABLE).
func TestRejectedRequestsOneFailure(t *testing.T) {
	t.Parallel()
	b := newSession(&conform.Attempt{Input: json.RawMessage(`{"tools":[{"name":"list_files"},{"name":"delete_file"}]}`)}).
		add("agent", "http", "steps/toolCallRequest", 10*time.Millisecond, `{"jsonrpc":"1.0","id":1,"method":"steps/toolCallRequest","params":{"toolCallRequest":{"executionId":"exec-1"}}}`).
		add("agent", "http", "steps/toolCallRequest", 20*time.Millisecond, `{"jsonrpc":"1.0","id":2,"method":"steps/toolCallRequest","params":{"toolCallRequest":{"executionId":"exec-2"}}}`)
	if o := run(t, "aos/3.12.1/jsonrpc-request", b.s); o.Verdict != conform.Fail {
		t.Errorf("jsonrpc-request: %s %s, want FAIL", o.Verdict, o.Message)
	}
	wantNotJudged(t, b.s, "aos/3.12.1/jsonrpc-request", []string{"aos/bind/all-tools-requested", "aos/5.1/deny-enforced", "aos/5.1/modify-enforced", "aos/4.6/request-before-execute"}...)
}

// wantNotJudged: each check is NOT-JUDGED on the session, depending on root.
func wantNotJudged(t *testing.T, s *conform.Session, root string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		o := run(t, id, s)
		if o.Verdict != conform.NotJudged || o.DependsOn != root || !strings.HasPrefix(o.Message, "not judged: depends on "+root+" (") {
			t.Errorf("%s: %s (depends on %q) %s; want NOT-JUDGED depending on %s", id, o.Verdict, o.DependsOn, o.Message, root)
		}
	}
}

// TestRootCausesRegistered: every root cause a check's After names is
// registered, and no check is its own cause.
func TestRootCausesRegistered(t *testing.T) {
	for _, c := range all() {
		for _, r := range append(slices.Clone(c.After), c.AfterElsewhere...) {
			if conform.LookupCheck(r) == nil || r == c.ID {
				t.Errorf("%s After or AfterElsewhere: %s is no check or the check itself", c.ID, r)
			}
		}
	}
}

// TestVacuousNotApplicable: a rule about what the agent sends, in a scenario in
// which it sent nothing, is NOT-APPLICABLE (nothing sent breaks it), not FAIL.
func TestVacuousNotApplicable(t *testing.T) {
	for _, id := range []string{
		"aop2/6.2/progress-rate", "aop2/10/no-delegation", "aop2/1.1/version-header", "aop2/1.2/message-types", "aop2/3/extension-keys",
		"orchmsg/rate/limit", "orchmsg/auth/own-tasks", "orchmsg/correlation/unique-ids", "orchmsg/delegation/depth",
		"orchmsg/format/base-fields", "orchmsg/format/message-type", "orchmsg/format/json", "orchmsg/limit/message-size", "orchmsg/requests/payload",
		"aof/envelope/json", "aof/envelope/fields", "aof/envelope/task-and-sender", "aof/status/valid-transition",
	} {
		s := &conform.Session{Scenario: &conform.Scenario{}, Attempts: []*conform.Attempt{{N: 1}}}
		if o := conform.LookupCheck(id).Run(s); o.Verdict != conform.NotApplicable {
			t.Errorf("%s on a silent agent: %s %q, want NOT-APPLICABLE", id, o.Verdict, o.Message)
		}
	}
}

// judge runs the checks on the sessions (scenario name: session), as the
// runner does: every check in every session, then the causes and dependencies
// resolved over the whole run. It returns the results by check and scenario.
func judge(t *testing.T, sessions map[string]*conform.Session, ids ...string) map[string]conform.Result {
	t.Helper()
	runs := map[string][]string{}
	for sc := range sessions {
		runs[sc] = ids
	}
	return judgeRuns(t, sessions, runs)
}

// judgeRuns is judge with the checks each scenario runs (runs: scenario: check
// IDs), as the shipped scenarios have them.
func judgeRuns(t *testing.T, sessions map[string]*conform.Session, runs map[string][]string) map[string]conform.Result {
	t.Helper()
	var rs []conform.Result
	for _, sc := range slices.Sorted(maps.Keys(sessions)) { // in order: the runner's is fixed too
		s := sessions[sc]
		for _, id := range runs[sc] {
			o := run(t, id, s)
			rs = append(rs, conform.Result{Check: id, Scenario: sc, Verdict: o.Verdict, DependsOn: o.DependsOn, Message: o.Message})
		}
	}
	conform.ApplyCauses(rs)
	conform.ResolveDependencies(rs)
	out := map[string]conform.Result{}
	for _, r := range rs {
		out[r.Check+" in "+r.Scenario] = r
	}
	return out
}

// wantVerdicts: each "check in scenario" of got has the verdict (and, when
// NOT-JUDGED, depends on the check) given.
func wantVerdicts(t *testing.T, got map[string]conform.Result, want map[string]string) {
	t.Helper()
	for k, w := range want {
		r, ok := got[k]
		v, dep, _ := strings.Cut(w, " under ")
		switch {
		case !ok:
			t.Errorf("%s: no result", k)
		case string(r.Verdict) != v || r.DependsOn != dep:
			t.Errorf("%s: %s (depends on %q) %s; want %s", k, r.Verdict, r.DependsOn, r.Message, w)
		}
	}
}

// aop2Retried is aop2-stale-recovery's session: attempt 1 killed, attempt 2
// answering with resp and ending with exit code.
func aop2Retried(resp string, code int) *conform.Session {
	task := func(n int) json.RawMessage {
		return json.RawMessage(`{"session":{"session_id":"S"},"task":{"task_id":"T","attempt":` + string(rune('0'+n)) + `},"target":{"provider":"P","model":"m"}}`)
	}
	killed := &conform.Attempt{Input: task(1)}
	killed.Exit.Signal = "SIGKILL"
	again := &conform.Attempt{Input: task(2)}
	again.Exit.Code = code
	b := newSession(killed, again).add("agent", "stdout", "RESPONSE", 10*time.Millisecond, resp)
	b.s.Records[0].Attempt = 2
	return b.s
}

const aop2OK = `{"message_type":"RESPONSE","session_id":"S","task_id":"T","agent":{"name":"a","provider":"P","model":"m"},"task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"ok"}}`

// TestWrongTaskIDOneFailure: an aop2 agent that answers another task_id fails
// aop2/1.2/response-ids; in aop2-stale-recovery aop2/recovery/clean-restart,
// which found the same wrong task_id, is NOT-JUDGED under it (before: both
// failed, found by testdata/agents/aop2.mjs bug-wrong-task-id).
func TestWrongTaskIDOneFailure(t *testing.T) {
	t.Parallel()
	s := aop2Retried(strings.Replace(aop2OK, `"task_id":"T"`, `"task_id":"T-OTHER"`, 1), 0)
	got := judge(t, map[string]*conform.Session{"stale-recovery": s}, "aop2/1.2/response-ids", "aop2/recovery/clean-restart")
	wantVerdicts(t, got, map[string]string{
		"aop2/1.2/response-ids in stale-recovery":       "FAIL",
		"aop2/recovery/clean-restart in stale-recovery": "NOT-JUDGED under aop2/1.2/response-ids",
	})
	// response-ids deselected: clean-restart reports the wrong task itself.
	got = judge(t, map[string]*conform.Session{"stale-recovery": s}, "aop2/recovery/clean-restart")
	if r := got["aop2/recovery/clean-restart in stale-recovery"]; r.Verdict != conform.Fail || !strings.Contains(r.Message, `answered another task: "T-OTHER", not "T"`) {
		t.Errorf("response-ids not run: clean-restart %s %q, want FAIL naming the task", r.Verdict, r.Message)
	}
}

// TestExitOneAfterResponseOneFailure: an aop2 agent that exits 1 after a
// correct RESPONSE fails aop2/bind/exit-zero (in the scenarios that run it);
// aop2/recovery/clean-restart, in aop2-stale-recovery, which does not run
// exit-zero, is NOT-JUDGED under it (before: both failed, found by
// testdata/agents/aop2.mjs bug-exit-one). An agent that exits 1 only when
// re-dispatched fails clean-restart, naming the exit: never no failure.
func TestExitOneAfterResponseOneFailure(t *testing.T) {
	t.Parallel()
	happy := func(code int) *conform.Session {
		a := &conform.Attempt{Input: json.RawMessage(`{"session":{"session_id":"S"},"task":{"task_id":"T"},"target":{"provider":"P","model":"m"}}`)}
		a.Exit.Code = code
		return newSession(a).add("agent", "stdout", "RESPONSE", 10*time.Millisecond, aop2OK).s
	}
	stale := judge(t, map[string]*conform.Session{"stale-recovery": aop2Retried(aop2OK, 1)}, "aop2/recovery/clean-restart", "aop2/1.2/response-ids")
	if r := stale["aop2/recovery/clean-restart in stale-recovery"]; r.Verdict != conform.Fail || !strings.Contains(r.Message, "answered, then exited non-zero: exit 1") || !strings.Contains(r.Message, "aop2/bind/exit-zero did not report it in this run, so this check does") {
		t.Errorf("exit 1 only when re-dispatched: clean-restart %s %q, want FAIL naming the exit", r.Verdict, r.Message)
	}
	// Both scenarios in one run.
	var rs []conform.Result
	for sc, s := range map[string]*conform.Session{"happy-path": happy(1), "stale-recovery": aop2Retried(aop2OK, 1)} {
		for _, id := range []string{"aop2/bind/exit-zero", "aop2/recovery/clean-restart"} {
			if sc == "stale-recovery" && id == "aop2/bind/exit-zero" {
				continue // aop2-stale-recovery does not run it
			}
			o := run(t, id, s)
			rs = append(rs, conform.Result{Check: id, Scenario: sc, Verdict: o.Verdict, DependsOn: o.DependsOn, Message: o.Message})
		}
	}
	conform.ApplyCauses(rs)
	conform.ResolveDependencies(rs)
	got := map[string]conform.Result{}
	for _, r := range rs {
		got[r.Check+" in "+r.Scenario] = r
	}
	wantVerdicts(t, got, map[string]string{
		"aop2/bind/exit-zero in happy-path":             "FAIL",
		"aop2/recovery/clean-restart in stale-recovery": "NOT-JUDGED under aop2/bind/exit-zero",
	})
}

// TestTooSlowOneFailure: an aop2 agent still working, without a RESPONSE, when
// the scenario's deadline stopped it is too slow to finish: aop2/11/
// finish-within-timeout's failure (in aop2-timeout), and aop2/5/final-response
// and aop2/bind/exit-zero are NOT-JUDGED under it (before: three FAILURES
// blocks, mockagent's exceed-timeout). One that answered and then ran on to the
// deadline fails exit-zero itself.
func TestTooSlowOneFailure(t *testing.T) {
	t.Parallel()
	stopped := &conform.Attempt{Input: json.RawMessage(`{"session":{"session_id":"S"},"task":{"task_id":"T"},"target":{"provider":"P","model":"m"}}`), Timeout: true}
	stopped.Exit.Signal = "SIGTERM"
	s := newSession(stopped).add("agent", "stdout", "EVENT/HEARTBEAT", 10*time.Millisecond, `{"message_type":"EVENT","event":"HEARTBEAT"}`).s
	wantNotJudged(t, s, "aop2/11/finish-within-timeout", "aop2/5/final-response", "aop2/bind/exit-zero")
	answered := &conform.Attempt{Input: stopped.Input, Timeout: true}
	answered.Exit.Signal = "SIGTERM"
	s = newSession(answered).add("agent", "stdout", "RESPONSE", 10*time.Millisecond, aop2OK).s
	if o := run(t, "aop2/bind/exit-zero", s); o.Verdict != conform.Fail {
		t.Errorf("answered, then ran on to the deadline: exit-zero %s %q, want FAIL", o.Verdict, o.Message)
	}
}

// TestIgnoredShutdownOneFailure: an orchmsg agent that ignores notify:shutdown
// (and stops on SIGTERM) fails orchmsg/shutdown/exit-within-grace;
// orchmsg/bind/exit-zero (in every scenario that sends the notification) and,
// in orchmsg-withheld-request, orchmsg/correlation/responses-awaited are
// NOT-JUDGED under it (before: three FAILURES blocks, found by
// testdata/agents/orchmsg.mjs bug-ignore-shutdown). An agent that ignores it
// only with a request pending fails responses-awaited alone.
func TestIgnoredShutdownOneFailure(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	session := func(ignores, withheld bool) *conform.Session {
		a := &conform.Attempt{ShutdownAt: t0.Add(time.Second), ShutdownFor: 2 * time.Second, End: t0.Add(3 * time.Second)}
		if ignores {
			a.Terminated = t0.Add(3 * time.Second)
		}
		s := newSession(a).s
		if withheld {
			s.Records = append(s.Records, conform.Record{Seq: 1, From: conform.ActorHarness, Event: conform.EventWithheld, Time: t0, Attempt: 1})
		}
		return s
	}
	ids := []string{"orchmsg/shutdown/exit-within-grace", "orchmsg/bind/exit-zero", "orchmsg/correlation/responses-awaited"}
	// exit-zero runs in happy-path and long-task, exit-within-grace in
	// happy-path and withheld-request, responses-awaited in withheld-request:
	// as the shipped scenarios have them.
	runs := map[string][]string{"happy-path": ids[:2], "long-task": ids[1:2], "withheld-request": {ids[2], ids[0]}}
	play := func(ignoresEverywhere bool) map[string]conform.Result {
		sessions := map[string]*conform.Session{}
		for sc := range runs {
			sessions[sc] = session(ignoresEverywhere || sc == "withheld-request", sc == "withheld-request")
		}
		return judgeRuns(t, sessions, runs)
	}
	wantVerdicts(t, play(true), map[string]string{
		"orchmsg/shutdown/exit-within-grace in happy-path":          "FAIL",
		"orchmsg/shutdown/exit-within-grace in withheld-request":    "FAIL",
		"orchmsg/bind/exit-zero in happy-path":                      "NOT-JUDGED under orchmsg/shutdown/exit-within-grace",
		"orchmsg/bind/exit-zero in long-task":                       "NOT-JUDGED under orchmsg/shutdown/exit-within-grace",
		"orchmsg/correlation/responses-awaited in withheld-request": "NOT-JUDGED under orchmsg/shutdown/exit-within-grace",
	})
	wantVerdicts(t, play(false), map[string]string{
		"orchmsg/shutdown/exit-within-grace in happy-path":          "PASS",
		"orchmsg/shutdown/exit-within-grace in withheld-request":    "NOT-JUDGED under orchmsg/correlation/responses-awaited",
		"orchmsg/bind/exit-zero in happy-path":                      "PASS",
		"orchmsg/correlation/responses-awaited in withheld-request": "FAIL",
	})
}

// TestBrokenJSONLineOneFailure: an orchmsg stdout line that starts a JSON
// object but is no typed message is orchmsg/format/json's failure;
// orchmsg/bind/stdout-protocol-only, which finds the same line, is NOT-JUDGED
// under it, unless free text is on stdout too. A line cut at 1 MiB is
// orchmsg/limit/message-size's: format/json is NOT-JUDGED under it (before:
// three FAILURES blocks for mockagent's oversize-payload).
func TestBrokenJSONLineOneFailure(t *testing.T) {
	t.Parallel()
	line := func(b *sessionBuilder, text string, cut bool) {
		r := conform.Record{Seq: len(b.s.Records) + 1, From: "agent", Stream: "stdout", Text: &text, Attempt: 1, Truncated: cut}
		b.s.Records = append(b.s.Records, r)
	}
	progress := `{"type":"event:progress","id":"e1","timestamp":"2026-11-24T10:00:00Z","payload":{"taskId":"t","progress":0.5}}`
	b := newSession(&conform.Attempt{}).add("agent", "stdout", "event:progress", 0, progress)
	line(b, `{"type":"event:progress","id":"e2","timestamp":"2026-1`, false)
	if o := run(t, "orchmsg/format/json", b.s); o.Verdict != conform.Fail {
		t.Errorf("a line cut short: format/json %s %q, want FAIL", o.Verdict, o.Message)
	}
	wantNotJudged(t, b.s, "orchmsg/format/json", "orchmsg/bind/stdout-protocol-only")
	line(b, `compiling…`, false)
	if o := run(t, "orchmsg/bind/stdout-protocol-only", b.s); o.Verdict != conform.Fail {
		t.Errorf("free text too: stdout-protocol-only %s %q, want FAIL", o.Verdict, o.Message)
	}
	b = newSession(&conform.Attempt{}).add("agent", "stdout", "event:progress", 0, progress)
	line(b, `{"type":"event:log","id":"e2","timestamp":"2026-11-24T10:00:00Z","payload":{"message":"xxxx`, true)
	if o := run(t, "orchmsg/limit/message-size", b.s); o.Verdict != conform.Fail {
		t.Errorf("a line cut at 1 MiB: message-size %s %q, want FAIL", o.Verdict, o.Message)
	}
	wantNotJudged(t, b.s, "orchmsg/limit/message-size", "orchmsg/format/json")
}

// TestShutdownHarnessStop: whether an orchmsg agent kept its grace period after
// notify:shutdown is judged only on its own acts. An agent the engine had to
// stop at the end of the grace period fails untimed (how long it ran is the
// harness's doing: no margin a CPU wait could excuse); one the scenario
// deadline stopped before its grace period was over is NOT-TESTED.
func TestShutdownHarnessStop(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	lingered := &conform.Attempt{ShutdownAt: t0, ShutdownFor: 2 * time.Second, Terminated: t0.Add(2 * time.Second), End: t0.Add(2005 * time.Millisecond)}
	o := run(t, "orchmsg/shutdown/exit-within-grace", newSession(lingered).s)
	if o.Verdict != conform.Fail || o.Measured != 0 || o.Limit != 0 {
		t.Errorf("stopped at the grace end: %s %s (measured %v, limit %v); want FAIL, untimed", o.Verdict, o.Message, o.Measured, o.Limit)
	}
	cut := &conform.Attempt{ShutdownAt: t0, ShutdownFor: 2 * time.Second, Timeout: true, Terminated: t0.Add(500 * time.Millisecond), End: t0.Add(510 * time.Millisecond)}
	if o := run(t, "orchmsg/shutdown/exit-within-grace", newSession(cut).s); o.Verdict != conform.NotTested {
		t.Errorf("deadline 0.5 s into the grace period: %s %s; want NOT-TESTED", o.Verdict, o.Message)
	}
}
