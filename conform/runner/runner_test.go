package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/fixtures/scenarios"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/all"
)

func builtin(t *testing.T) []*conform.Scenario {
	t.Helper()
	ss, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestInProcess drives the aop2 happy path against the in-process mock agent and
// a fault of it, and checks the transcript is transcript/1.
func TestInProcess(t *testing.T) {
	ag, err := mockagent.Lookup("aop2")
	if err != nil {
		t.Skip("no aop2 mock agent")
	}
	for _, tt := range []struct {
		fault    string
		mustFail string
	}{
		{"", ""},
		{"wrong-session-id", "aop2/1.2/response-ids"},
	} {
		t.Run("fault="+tt.fault, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			rep, err := Run(context.Background(), Options{
				Protocol: "aop2", Command: []string{"mockagent", "--protocol", "aop2"}, Scenarios: builtin(t),
				Run: "aop2/1.2/response-ids,aop2/5/final-response", OutDir: out,
				Launcher: agentio.InProcess{Agent: ag, Fault: tt.fault},
			})
			if err != nil {
				t.Fatal(err)
			}
			failed := map[string]bool{}
			for _, r := range rep.Results {
				if r.Verdict == conform.Fail {
					failed[r.Check] = true
				}
			}
			if tt.mustFail == "" && (len(failed) > 0 || rep.Score.MustFailed) {
				t.Errorf("correct agent failed %v", failed)
			}
			if tt.mustFail != "" && !failed[tt.mustFail] {
				t.Errorf("fault %s did not fail %s (failed: %v)", tt.fault, tt.mustFail, failed)
			}
			b, err := os.ReadFile(filepath.Join(out, "aop2-happy-path.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["aopkit"] != "transcript/1" || rec["seq"] != float64(i+1) {
					t.Fatalf("line %d is not a transcript/1 record: %s", i+1, line)
				}
			}
		})
	}
}

func TestRerunCommand(t *testing.T) {
	t.Parallel()
	got := RerunCommand(Options{Protocol: "aos", Command: []string{"./my agent", "--x=it's"}, Scale: 2, RerunArgs: []string{"--scenarios", "dir"}}, "aos/5.1/deny-enforced")
	want := `aopconform run --protocol aos --scenarios dir --timeout-scale 2 --run aos/5.1/deny-enforced -- './my agent' '--x=it'\''s'`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	ss := builtin(t)
	for name, o := range map[string]Options{
		"protocol":  {Protocol: "nope", Command: []string{"x"}, Scenarios: ss},
		"command":   {Protocol: "aop2", Scenarios: ss},
		"selection": {Protocol: "aop2", Command: []string{"x"}, Scenarios: ss, Run: "no-such-check"},
	} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// scriptedAgent writes lines (after optional delays) and then waits to be stopped.
func scriptedAgent(lines ...string) *mockagent.Agent {
	return &mockagent.Agent{Protocol: "aop2", Run: func(ctx context.Context, env mockagent.Env, _ string) int {
		go io.Copy(io.Discard, env.Stdin) // the in-process pipe has no buffer
		for _, l := range lines {
			if strings.HasPrefix(l, "sleep ") {
				d, _ := time.ParseDuration(strings.TrimPrefix(l, "sleep "))
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return 0
				}
				continue
			}
			fmt.Fprintln(env.Stdout, l)
		}
		<-ctx.Done()
		return 0
	}}
}

// TestSteps: a message:KEY step fires after the message it waits for, a quiet step
// after silence, and the deadline stops an agent that never ends.
func TestSteps(t *testing.T) {
	t.Parallel()
	beat := `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-11-22T10:00:00Z"}`
	// A valid TASK: the aop2 engine rejects an invalid one without dispatching it.
	task := json.RawMessage(`{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"TASK",` +
		`"session":{"session_id":"S","created_at":"2026-11-22T10:00:00Z","orchestrator":"t","origin":"CLI"},` +
		`"target":{"agent_name":"a","role":"EXECUTOR","provider":"CODEX","model":"m"},` +
		`"task":{"task_id":"T","attempt":1,"objective":"o","category":"ANALYSIS","complexity":"LOW","environment":{"workspace_root":"/w"}}}`)
	// Only the "deadline" cases have a deadline that can pass: elsewhere it is far
	// beyond any step, so a loaded machine that delays a step cannot turn the
	// expected sequence into a timeout. Each expected order follows from the steps'
	// triggers, not from how fast the machine is.
	const never = 60 * time.Second
	for _, tt := range []struct {
		name     string
		agent    *mockagent.Agent
		steps    []conform.Step
		deadline time.Duration
		events   []string // harness events in order (after agent-start)
	}{
		{"message trigger", scriptedAgent("sleep 50ms", beat),
			[]conform.Step{{On: "message:EVENT/HEARTBEAT", After: conform.Duration(20 * time.Millisecond), Do: "terminate"}}, never,
			[]string{"timers-start", "signal", "agent-exit"}},
		{"quiet trigger", scriptedAgent(beat, "sleep 20ms", beat),
			[]conform.Step{{On: "quiet", After: conform.Duration(150 * time.Millisecond), Do: "close-stdin"}, {On: "quiet", After: conform.Duration(time.Second), Do: "kill"}}, never,
			[]string{"timers-start", "close-stdin", "kill", "agent-exit"}},
		{"deadline", scriptedAgent(beat), nil, 400 * time.Millisecond,
			[]string{"timers-start", "timeout", "signal", "agent-exit"}},
		// Timers start at the first sign of life: a step "on start" and the deadline
		// count from the agent's first line, not from its launch (the loop below
		// checks that nothing fires before that line).
		{"start-up excluded from steps", scriptedAgent("sleep 500ms", beat),
			[]conform.Step{{On: "start", After: conform.Duration(100 * time.Millisecond), Do: "terminate"}}, never,
			[]string{"timers-start", "signal", "agent-exit"}},
		{"start-up excluded from the deadline", scriptedAgent("sleep 500ms", beat), nil, 400 * time.Millisecond,
			[]string{"timers-start", "timeout", "signal", "agent-exit"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := &conform.Scenario{ID: "steps", Protocol: "aop2", Deadline: conform.Duration(tt.deadline), Task: task, Steps: tt.steps, Checks: []string{"aop2/lint/messages-valid"}}
			rep, err := Run(context.Background(), Options{Protocol: "aop2", Command: []string{"agent"}, Scenarios: []*conform.Scenario{sc}, OutDir: t.TempDir(), Launcher: agentio.InProcess{Agent: tt.agent}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rep.Scenarios[0].Records {
				if r.From == "harness" && r.Event != "agent-start" && r.Event != "scenario-start" && r.Event != "scenario-end" && r.Event != "engine-outcome" {
					got = append(got, string(r.Event))
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.events, " ") {
				t.Errorf("events %v, want %v", got, tt.events)
			}
			// No step fires and no deadline passes before the agent's first line.
			first := 0
			for _, r := range rep.Scenarios[0].Records {
				if r.From == "agent" && first == 0 {
					first = r.Seq
				}
				if r.From == "harness" && (r.Event == "signal" || r.Event == "timeout" || r.Event == "close-stdin") && (first == 0 || r.Seq < first) {
					t.Errorf("%s (record %d) before the agent's first line (record %d)", r.Event, r.Seq, first)
				}
			}
		})
	}
}

// TestMergeRuns: a timing check that fails in one run and passes in another is
// FLAKY with the failing run's message; a non-timing check that fails once fails;
// a timing check failing in every run under heavy harness slip is HARNESS-ERROR.
func TestMergeRuns(t *testing.T) {
	t.Parallel()
	timing, plain := "aop2/6.1/heartbeat-interval", "aop2/5/final-response"
	if c := conform.LookupCheck(timing); c == nil || !c.Timing {
		t.Fatalf("%s is not registered as a timing check", timing)
	}
	r := func(id string, v conform.Verdict, msg string) conform.Result {
		return conform.Result{Check: id, Verdict: v, Message: msg}
	}
	opts := Options{Protocol: "aop2", Command: []string{"agent"}}
	got := mergeRuns(opts, [][]conform.Result{
		{r(timing, conform.Fail, "gap of 1.4s"), r(plain, conform.Pass, "ok")},
		{r(timing, conform.Pass, "ok"), r(plain, conform.Fail, "two RESPONSEs")},
	}, []int64{3, 4}, false)
	if got[0].Verdict != conform.Flaky || !strings.Contains(got[0].Message, "gap of 1.4s") || got[0].Runs != 2 || got[0].Passed != 1 {
		t.Errorf("timing check: %+v", got[0])
	}
	if got[1].Verdict != conform.Fail || got[1].Passed != 1 {
		t.Errorf("plain check: %+v", got[1])
	}
	got = mergeRuns(opts, [][]conform.Result{{r(plain, conform.NotTested, "slow run")}, {r(plain, conform.NotApplicable, "clean run")}}, []int64{3, 4}, true)
	if got[0].Verdict != conform.NotApplicable {
		t.Errorf("NOT-TESTED in a slow run, NOT-APPLICABLE in a clean one: %v", got[0].Verdict)
	}
	got = mergeRuns(opts, [][]conform.Result{{r(timing, conform.Fail, "late")}, {r(timing, conform.Fail, "late")}}, []int64{900, 1200}, false)
	if got[0].Verdict != conform.HarnessError {
		t.Errorf("timing failure under 900 ms slip: %v, want HARNESS-ERROR", got[0].Verdict)
	}
	got = mergeRuns(opts, [][]conform.Result{{r(timing, conform.Fail, "late")}, {r(timing, conform.Fail, "late")}}, []int64{5, 1200}, false)
	if got[0].Verdict != conform.Fail {
		t.Errorf("timing failure in a run without slip: %v, want FAIL", got[0].Verdict)
	}
	// Runs that hit the deadline under heavy slip: a failure on what the agent
	// sent stays a FAIL (a slow machine did not write the RESPONSE), any other is
	// HARNESS-ERROR; against a clean passing run, the first is still a FAIL and
	// only the other is FLAKY.
	sent := func(v conform.Verdict) conform.Result {
		x := r(plain, v, "the RESPONSE lacks final_signal")
		x.Sent = v == conform.Fail
		return x
	}
	got = mergeRuns(opts, [][]conform.Result{{sent(conform.Fail), r(plain, conform.Fail, "no RESPONSE")}, {sent(conform.Fail), r(plain, conform.Fail, "no RESPONSE")}}, []int64{900, 1200}, true)
	if got[0].Verdict != conform.Fail || got[1].Verdict != conform.HarnessError {
		t.Errorf("deadline runs under slip: sent %v (want FAIL), other %v (want HARNESS-ERROR)", got[0].Verdict, got[1].Verdict)
	}
	got = mergeRuns(opts, [][]conform.Result{{sent(conform.Fail), r(plain, conform.Fail, "no RESPONSE")}, {sent(conform.Pass), r(plain, conform.Pass, "ok")}}, []int64{3, 4}, true)
	if got[0].Verdict != conform.Fail || got[1].Verdict != conform.Flaky {
		t.Errorf("deadline run and a clean one: sent %v (want FAIL), other %v (want FLAKY)", got[0].Verdict, got[1].Verdict)
	}
	// The containment check is judged only in a run where the agent wrote outside
	// its scratch directory: merged by ID, its failure is kept whichever run saw it.
	esc := r("aop2/bind/writes-in-scratch", conform.Fail, "wrote /etc/x")
	for _, runs := range [][][]conform.Result{
		{{r(plain, conform.Pass, "ok"), esc}, {r(plain, conform.Pass, "ok")}},
		{{r(plain, conform.Pass, "ok")}, {r(plain, conform.Pass, "ok"), esc}},
	} {
		got = mergeRuns(opts, runs, []int64{3, 4}, false)
		if len(got) != 2 || got[0].Verdict != conform.Pass || got[1].Check != esc.Check || got[1].Verdict != conform.Fail || got[1].Runs != 2 {
			t.Errorf("a check judged in one run of two: %+v", got)
		}
	}
	if needsConfirmation([]conform.Result{sent(conform.Fail)}, true, true) {
		t.Errorf("a failure on what the agent sent needs no confirmation run")
	}
	if !needsConfirmation([]conform.Result{r(plain, conform.Fail, "no RESPONSE")}, true, true) {
		t.Errorf("a failure in a run that hit the deadline needs a confirmation run")
	}
}

// TestNotApplicable: NOT-TESTED becomes NOT-APPLICABLE only for an agent that spoke
// and ended every attempt by itself with exit 0.
func TestNotApplicable(t *testing.T) {
	t.Parallel()
	spoke := []conform.Record{{From: "agent", Key: "RESPONSE"}}
	clean := &conform.Attempt{N: 1}
	crashed := &conform.Attempt{N: 1, Exit: agentio.Exit{Code: 3}}
	nt := conform.NotTestedf("the agent ended before the harness stopped it")
	if o := notApplicable(nt, &conform.Session{Records: spoke, Attempts: []*conform.Attempt{clean}}, "agent"); o.Verdict != conform.NotApplicable {
		t.Errorf("clean exit: %v", o.Verdict)
	}
	if o := notApplicable(nt, &conform.Session{Records: spoke, Attempts: []*conform.Attempt{crashed}}, "agent"); o.Verdict != conform.NotTested {
		t.Errorf("crash: %v", o.Verdict)
	}
	if o := notApplicable(nt, &conform.Session{Attempts: []*conform.Attempt{clean}}, "agent"); o.Verdict != conform.NotTested {
		t.Errorf("silent agent: %v", o.Verdict)
	}
}

// TestCrashCause: a NOT-TESTED result of a scenario whose agent crashed (exited
// by itself with a non-zero code) is NOT-JUDGED under the protocol's
// bind/exit-zero; one that ended otherwise (exit 0, a signal, a non-zero exit
// after the harness's SIGTERM or at the deadline: the harness acted first), the
// orchestrator side and the exit check itself keep their verdict.
func TestCrashCause(t *testing.T) {
	t.Parallel()
	sc := &conform.Scenario{Protocol: "aop2"}
	c := conform.LookupCheck("aop2/bind/stop-on-sigterm")
	exitZero := conform.LookupCheck("aop2/bind/exit-zero")
	if c == nil || exitZero == nil {
		t.Fatal("aop2's checks are not registered")
	}
	nt := conform.NotTestedf("the agent ended before the harness stopped it")
	crashed := &conform.Session{Scenario: sc, Attempts: []*conform.Attempt{{N: 1, Exit: agentio.Exit{Code: 2}}}}
	o := crashCause(nt, c, crashed, conform.ActorAgent)
	if o.Verdict != conform.NotJudged || o.DependsOn != exitZero.ID || !strings.Contains(o.Message, "exited with code 2 first: the agent ended before") {
		t.Errorf("crash: %s under %q: %s", o.Verdict, o.DependsOn, o.Message)
	}
	for name, tc := range map[string]struct {
		s      *conform.Session
		c      *conform.Check
		judged conform.Actor
	}{
		"exit 0":                             {&conform.Session{Scenario: sc, Attempts: []*conform.Attempt{{N: 1}}}, c, conform.ActorAgent},
		"killed":                             {&conform.Session{Scenario: sc, Attempts: []*conform.Attempt{{N: 1, Exit: agentio.Exit{Signal: "killed"}}}}, c, conform.ActorAgent},
		"exit 1 after the harness's SIGTERM": {&conform.Session{Scenario: sc, Attempts: []*conform.Attempt{{N: 1, Exit: agentio.Exit{Code: 1}, Terminated: time.Unix(1, 0)}}}, c, conform.ActorAgent},
		"exit 1 at the deadline":             {&conform.Session{Scenario: sc, Attempts: []*conform.Attempt{{N: 1, Exit: agentio.Exit{Code: 1}, Timeout: true}}}, c, conform.ActorAgent},
		"orchestrator":                       {crashed, c, conform.ActorOrchestrator},
		"exit check":                         {crashed, exitZero, conform.ActorAgent},
	} {
		if o := crashCause(nt, tc.c, tc.s, tc.judged); o.Verdict != conform.NotTested {
			t.Errorf("%s: %s, want NOT-TESTED kept", name, o.Verdict)
		}
	}
}

// TestSilenceIsRoot: a silent implementation fails one check, in every
// scenario that judged it: the one that failed on its own evidence, a MUST, the
// most basic tier; every other judged result is NOT-JUDGED under it, and
// deselected results and those of a scenario the harness could not judge keep
// their verdicts.
func TestSilenceIsRoot(t *testing.T) {
	t.Parallel()
	r := func(check string, tier conform.Tier, level conform.Level, v conform.Verdict) conform.Result {
		return conform.Result{Check: check, Tier: tier, Level: level, Verdict: v}
	}
	results := [][]conform.Result{
		{
			r("p/a/vacuous", conform.Core, conform.MUST, conform.NotApplicable),
			r("p/b/should", conform.Core, conform.SHOULD, conform.Fail),
			r("p/c/full", conform.Full, conform.MUST, conform.Fail),
			r("p/d/core", conform.Core, conform.MUST, conform.Fail),
			r("p/e/skipped", conform.Core, conform.MUST, conform.Skip),
		},
		{r("p/d/core", conform.Core, conform.MUST, conform.NotTested), r("p/a/vacuous", conform.Core, conform.MUST, conform.Pass)},
		{r("p/d/core", conform.Core, conform.MUST, conform.Fail)},
	}
	runs := []conform.ScenarioRun{{}, {}, {HarnessError: "the transcript could not be written"}}
	silenceIsRoot(results, runs, func(x *conform.Result) { x.Verdict, x.Message = conform.Fail, "silent" }, "the agent never sent a protocol message in any scenario")
	want := [][]conform.Verdict{
		{conform.NotJudged, conform.NotJudged, conform.NotJudged, conform.Fail, conform.Skip},
		{conform.Fail, conform.NotJudged},
		{conform.Fail}, // the harness error's scenario: kept as it was
	}
	for i := range results {
		for j, x := range results[i] {
			if x.Verdict != want[i][j] {
				t.Errorf("scenario %d, %s: %s, want %s", i, x.Check, x.Verdict, want[i][j])
			}
			if x.Verdict == conform.NotJudged && (x.DependsOn != "p/d/core" || !strings.Contains(x.Message, "never sent a protocol message")) {
				t.Errorf("scenario %d, %s: depends on %q (%s), want p/d/core", i, x.Check, x.DependsOn, x.Message)
			}
		}
	}
}

// TestFlakyOnlyWithinTolerance: a timing check that failed in one run and
// passed in another is FLAKY only when its failing run's margin is within what
// the harness's lateness in that run can explain (FlakyTolerance: twice the
// slip plus 50 ms, × scale). A margin far beyond it is the agent's failure,
// whatever the other run did; a failure without a measurement stays FLAKY.
func TestFlakyOnlyWithinTolerance(t *testing.T) {
	t.Parallel()
	timing := "aop2/6.1/heartbeat-interval"
	opts := Options{Protocol: "aop2", Command: []string{"agent"}}
	fail := func(margin int64, measured bool) conform.Result {
		r := conform.Result{Check: timing, Verdict: conform.Fail, Message: "lint AOP2-SEQ-006: it is 0.9 s behind"}
		if measured {
			r.MeasuredMS, r.LimitMS = 700+margin, 700
			r.MarginMS = &margin
		}
		return r
	}
	pass := conform.Result{Check: timing, Verdict: conform.Pass, Message: "ok"}
	for _, tt := range []struct {
		name  string
		runs  [][]conform.Result
		slips []int64
		scale float64
		want  conform.Verdict
	}{
		{"far beyond a small slip", [][]conform.Result{{fail(200, true)}, {pass}}, []int64{10, 5}, 1, conform.Fail},
		{"far beyond, the pass first", [][]conform.Result{{pass}, {fail(200, true)}}, []int64{5, 10}, 1, conform.Fail},
		{"within twice the slip plus 50 ms", [][]conform.Result{{fail(60, true)}, {pass}}, []int64{10, 5}, 1, conform.Flaky},
		{"at the tolerance", [][]conform.Result{{fail(70, true)}, {pass}}, []int64{10, 5}, 1, conform.Flaky},
		{"just beyond the tolerance", [][]conform.Result{{fail(71, true)}, {pass}}, []int64{10, 5}, 1, conform.Fail},
		{"the failing run's slip counts", [][]conform.Result{{fail(200, true)}, {pass}}, []int64{100, 5}, 1, conform.Flaky},
		{"the passing run's slip does not", [][]conform.Result{{fail(200, true)}, {pass}}, []int64{5, 900}, 1, conform.Fail},
		{"scaled tolerance", [][]conform.Result{{fail(200, true)}, {pass}}, []int64{10, 5}, 4, conform.Flaky},
		{"no measurement", [][]conform.Result{{fail(0, false)}, {pass}}, []int64{10, 5}, 1, conform.Flaky},
	} {
		o := opts
		o.Scale = tt.scale
		got := mergeRuns(o, tt.runs, tt.slips, false)
		if got[0].Verdict != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.name, got[0].Verdict, got[0].Message, tt.want)
		}
		if tt.want == conform.Fail && (!strings.Contains(got[0].Message, "tolerance") || got[0].Passed != 1) {
			t.Errorf("%s: the message should say the failure is beyond the tolerance and the pass count stay: %+v", tt.name, got[0])
		}
	}
}
