package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/fault"
	"github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/conform/protocols"
	"github.com/aopkit/aopkit/conform/runner"
	"github.com/aopkit/aopkit/fixtures/scenarios"
	aopconformcmd "github.com/aopkit/aopkit/internal/cmd/aopconform"
)

// orchestratorsDir holds the orchestrators written from docs/bindings.md alone.
var orchestratorsDir = filepath.Join("..", "..", "testdata", "orchestrators")

// TestOrchestratorSide certifies orchestrators with `aopconform run --side
// orchestrator`: the reference engine (aopconform engine) passes every check but
// the gaps its known-failing file lists; the Python orchestrator of
// testdata/orchestrators reaches level Full; each of its bug modes fails exactly
// the check that names the bug; each fault of the reference engines (aopconform
// engine-faults) fails the checks the engine declares (its fault.Fault.Fails,
// as `aopconform engine-faults --format json` prints them): exactly those over
// the whole suite when the fault says so (Exact: every aop-output and aos
// fault), else at least those, playing their scenarios alone; so every
// orchestrator-side check is seen failing.
func TestOrchestratorSide(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real orchestrators")
	}
	scale := "1"
	if raceEnabled {
		scale = "3"
	}
	base := []string{"--side", "orchestrator", "--protocol", "aop2", "--timeout-scale", scale}
	py := filepath.Join(orchestratorsDir, "aop2_orch.py")
	obase := []string{"--side", "orchestrator", "--protocol", "orchmsg", "--timeout-scale", scale}
	opy := filepath.Join(orchestratorsDir, "orchmsg_orch.py")
	abase := []string{"--side", "orchestrator", "--protocol", "aos", "--timeout-scale", scale}
	apy := filepath.Join(orchestratorsDir, "aos_guardian.py")
	aobase := []string{"--side", "orchestrator", "--protocol", "aop-output", "--timeout-scale", scale}
	aopy := filepath.Join(orchestratorsDir, "aopoutput_orch.py")
	fbase := []string{"--side", "orchestrator", "--protocol", "aof", "--timeout-scale", scale}
	fpy := filepath.Join(orchestratorsDir, "aof_orch.py")
	type job struct {
		name string
		args []string
		// fail lists the checks that must fail (nil: the run must pass, exit 0).
		fail []string
		// engineFault: a fault of the reference engine ("protocol fault"); its
		// run must judge (no harness error) and fail what the engine declares
		// the fault to fail (fails: exactly those when exact, else at least);
		// what it fails is logged.
		engineFault string
		fails       []string
		exact       bool
		// engine: a run of the reference engine (its decisions are the
		// reference); inproc: played in-process on virtual time (playEngine),
		// protocol and fault its engine's.
		engine          bool
		inproc          bool
		protocol, fault string
		code            int
		out             string
		rep             *conform.Report
		err             error
	}
	jobs := []*job{
		// The correct engine as a real process, once per protocol (the
		// launcher, the sandbox, signals and process groups for real; -update
		// writes the reference decisions from these).
		{name: "engine", engine: true, args: append(append([]string(nil), base...), "--known-failing", filepath.Join(orchestratorsDir, "engine.known-failing"), "--", "aopconform", "engine", "--protocol", "aop2")},
		{name: "orchmsg engine", engine: true, args: append(append([]string(nil), obase...), "--", "aopconform", "engine", "--protocol", "orchmsg")},
		{name: "aos engine", engine: true, args: append(append([]string(nil), abase...), "--", "aopconform", "engine", "--protocol", "aos")},
		{name: "aop-output engine", engine: true, args: append(append([]string(nil), aobase...), "--", "aopconform", "engine", "--protocol", "aop-output")},
		{name: "aof engine", engine: true, args: append(append([]string(nil), fbase...), "--", "aopconform", "engine", "--protocol", "aof")},
	}
	// And in-process (every engine but the aos guardian's), on the whole suite:
	// the in-process path must judge the correct engine as the real one is.
	for _, p := range inProcessProtocols {
		if *engineReal {
			break
		}
		jobs = append(jobs, &job{name: p + " engine in-process", engine: true, inproc: true, protocol: p,
			args: append([]string{"--side", "orchestrator", "--protocol", p, "--"}, engineCommand(p, "")...)})
	}
	if _, err := exec.LookPath("python3"); err == nil {
		jobs = append(jobs,
			&job{name: "python", args: append(append([]string(nil), base...), "--", "python3", py)},
			&job{name: "python no-timeout-kill", args: append(append([]string(nil), base...), "--", "python3", py, "no-timeout-kill"),
				fail: []string{"aop2/orch/11/timeout-enforced", "aop2/orch/9/fallback-by-trigger"}},
			&job{name: "python execution-policy-timeout", args: append(append([]string(nil), base...), "--", "python3", py, "execution-policy-timeout"),
				fail: []string{"aop2/orch/11/timeout-enforced", "aop2/orch/9/fallback-by-trigger"}},
			&job{name: "python ignore-heartbeats", args: append(append([]string(nil), base...), "--", "python3", py, "ignore-heartbeats"),
				fail: []string{"aop2/orch/6.1/heartbeat-failure-abort"}},
			&job{name: "python wrong-fallback-model", args: append(append([]string(nil), base...), "--", "python3", py, "wrong-fallback-model"),
				fail: []string{"aop2/orch/9/fallback-by-trigger"}},
			&job{name: "python close-stdin-early", args: append(append([]string(nil), base...), "--", "python3", py, "close-stdin-early"),
				fail: []string{"aop2/orch/11/timeout-enforced", "aop2/orch/6.1/heartbeat-failure-abort", "aop2/orch/9/fallback-by-trigger", "aop2/orch/bind/healthy-agent-completes"}},
			&job{name: "python skip-rollback", args: append(append([]string(nil), base...), "--", "python3", py, "skip-rollback"),
				fail: []string{"aop2/orch/7/rollback-restored"}},
			&job{name: "orchmsg python", args: append(append([]string(nil), obase...), "--", "python3", opy)},
			&job{name: "orchmsg python wrong-correlation-id", args: append(append([]string(nil), obase...), "--", "python3", opy, "wrong-correlation-id"),
				fail: []string{"orchmsg/orch/corr/response-correlation", "orchmsg/orch/shutdown/grace-honoured"}},
			&job{name: "orchmsg python no-shutdown-grace", args: append(append([]string(nil), obase...), "--", "python3", opy, "no-shutdown-grace"),
				fail: []string{"orchmsg/orch/shutdown/grace-honoured"}},
			// Orchestrators that rely on the harness's clean-up to look compliant
			// (issue 28): the harness's SIGKILL after the orchestrator's exit is not
			// its stop, the stdin closed as the harness stops it not its EOF.
			&job{name: "orchmsg python exit-without-stop", args: append(append([]string(nil), obase...), "--", "python3", opy, "exit-without-stop"),
				fail: []string{"orchmsg/orch/shutdown/grace-honoured"}},
			&job{name: "python v1-stdin-open", args: append(append([]string(nil), base...), "--", "python3", py, "v1-stdin-open"),
				fail: []string{"aop2/orch/1.3/v1-prompt-dispatched"}},
			// Orchestrators as they ship: a daemon stays up once the task is
			// decided (the harness stops it, no fault), and a slow start-up
			// (4.5 s busy in the 4 s rate-flood scenario) gets the start-up
			// allowance, as an agent does.
			&job{name: "python daemon", args: append(append([]string(nil), base...), "--", "python3", py, "daemon")},
			&job{name: "orchmsg python daemon", args: append(append([]string(nil), obase...), "--", "python3", opy, "daemon")},
			&job{name: "orchmsg python ask-user-unsupported", args: append(append([]string(nil), obase...), "--", "python3", opy, "ask-user-unsupported"),
				fail: []string{"orchmsg/orch/resp/fits-request"}},
			&job{name: "orchmsg python internal-error-codes", args: append(append([]string(nil), obase...), "--", "python3", opy, "internal-error-codes"),
				fail: []string{"orchmsg/orch/errors/foreign-task", "orchmsg/orch/errors/invalid-request", "orchmsg/orch/errors/not-found"}},
			&job{name: "orchmsg python ignore-status", args: append(append([]string(nil), obase...), "--", "python3", opy, "ignore-status"),
				fail: []string{"orchmsg/orch/resp/query-filters"}},
			&job{name: "orchmsg python no-cancel", args: append(append([]string(nil), obase...), "--", "python3", opy, "no-cancel"),
				fail: []string{"orchmsg/orch/notify/task-cancelled"}},
			&job{name: "orchmsg python drop-flood", args: append(append([]string(nil), obase...), "--", "python3", opy, "drop-flood"),
				fail: []string{"orchmsg/orch/rate/flood-rejected"}},
			&job{name: "orchmsg python no-assignment", args: append(append([]string(nil), obase...), "--", "python3", opy, "no-assignment"),
				// It never sends a protocol message: one failure, the Core
				// check it breaks; the rest is NOT-JUDGED under it.
				fail: []string{"orchmsg/orch/notify/task-assigned"}},
			&job{name: "aos python", args: append(append([]string(nil), abase...), "--", "python3", apy)},
			&job{name: "aos python approve", args: append(append([]string(nil), abase...), "--", "python3", apy, "approve"),
				fail: []string{"aos/orch/5.1/decision"}},
			&job{name: "aos python ignore-version", args: append(append([]string(nil), abase...), "--", "python3", apy, "ignore-version"),
				fail: []string{"aos/orch/3.12.1/jsonrpc-version"}},
			&job{name: "aos python no-params-check", args: append(append([]string(nil), abase...), "--", "python3", apy, "no-params-check"),
				fail: []string{"aos/orch/6.1/invalid-params"}},
			&job{name: "aos python string-ids", args: append(append([]string(nil), abase...), "--", "python3", apy, "string-ids"),
				fail: []string{"aos/orch/3.12.1/jsonrpc-version", "aos/orch/5.3/ping", "aos/orch/6.1/invalid-request", "aos/orch/6.1/method-not-found"}},
			&job{name: "aos python plain-parse-error", args: append(append([]string(nil), abase...), "--", "python3", apy, "plain-parse-error"),
				fail: []string{"aos/orch/6.1/parse-error"}},
			&job{name: "aop-output python", args: append(append([]string(nil), aobase...), "--", "python3", aopy)},
			&job{name: "aop-output python summary-first-line", args: append(append([]string(nil), aobase...), "--", "python3", aopy, "summary-first-line"),
				fail: []string{"aop-output/orch/parse/report-taken"}},
			&job{name: "aop-output python cut-at-600", args: append(append([]string(nil), aobase...), "--", "python3", aopy, "cut-at-600"),
				fail: []string{"aop-output/orch/limits/summary-within-task-type"}},
			&job{name: "aop-output python follow-details-path", args: append(append([]string(nil), aobase...), "--", "python3", aopy, "follow-details-path"),
				fail: []string{"aop-output/orch/details/stays-in-workspace"}},
			&job{name: "aop-output python success-on-exit-0", args: append(append([]string(nil), aobase...), "--", "python3", aopy, "success-on-exit-0"),
				fail: []string{"aop-output/orch/parse/unusable-not-success"}},
			&job{name: "aop-output python wait-for-exit", args: append(append([]string(nil), aobase...), "--", "python3", aopy, "wait-for-exit"),
				fail: []string{"aop-output/orch/bind/agent-stopped-after-report"}},
			&job{name: "aof python", args: append(append([]string(nil), fbase...), "--", "python3", fpy)},
			&job{name: "aof python reclaim-too-early", args: append(append([]string(nil), fbase...), "--", "python3", fpy, "reclaim-too-early"),
				fail: []string{"aof/orch/resume/reclaim-after-expiry", "aof/orch/completion/transition"}},
			&job{name: "aof python allow-nested-delegation", args: append(append([]string(nil), fbase...), "--", "python3", fpy, "allow-nested-delegation"),
				fail: []string{"aof/orch/handoff/nested-rejected"}},
			&job{name: "aof python blind-requeue", args: append(append([]string(nil), fbase...), "--", "python3", fpy, "blind-requeue"),
				fail: []string{"aof/orch/resume/outcome-driven"}},
			&job{name: "aof python done-skips-review", args: append(append([]string(nil), fbase...), "--", "python3", fpy, "done-skips-review"),
				fail: []string{"aof/orch/completion/transition"}},
			&job{name: "aof python no-child-dispatch", args: append(append([]string(nil), fbase...), "--", "python3", fpy, "no-child-dispatch"),
				fail: []string{"aof/orch/handoff/child-dispatched"}},
			&job{name: "aof python accept-invalid-report", args: append(append([]string(nil), fbase...), "--", "python3", fpy, "accept-invalid-report"),
				fail: []string{"aof/orch/envelope/invalid-rejected"}},
			&job{name: "aof python no-run-json", args: append(append([]string(nil), fbase...), "--", "python3", fpy, "no-run-json"),
				fail: []string{"aof/orch/lease/dispatched"}},
			&job{name: "python task-status-in-task", args: append(append([]string(nil), base...), "--", "python3", py, "task-status-in-task"),
				fail: []string{"aop2/orch/1.2/task-dispatched"}},
			&job{name: "python no-version-fallback", args: append(append([]string(nil), base...), "--", "python3", py, "no-version-fallback"),
				fail: []string{"aop2/orch/1.3/v1-prompt-dispatched", "aop2/orch/1.3/version-fallback-event"}},
			&job{name: "python no-rollback-event", args: append(append([]string(nil), base...), "--", "python3", py, "no-rollback-event"),
				fail: []string{"aop2/orch/7/rollback-event"}},
			&job{name: "python omit-error-codes", args: append(append([]string(nil), base...), "--", "python3", py, "omit-error-codes"),
				fail: []string{"aop2/orch/12/heartbeat-failure-code", "aop2/orch/12/timeout-code"}},
		)
	} else {
		t.Log("no python3: only the engine is certified")
	}
	// The engines' faults (aopconform engine-faults): the engine misbehaving on purpose.
	for _, f := range listEngineFaults(t) {
		key := f.Protocol + " " + f.Fault
		j := &job{name: f.Protocol + " engine fault " + f.Fault, engineFault: key, fails: f.Fails, exact: f.Exact, protocol: f.Protocol, fault: f.Fault,
			args: []string{"--side", "orchestrator", "--protocol", f.Protocol, "--timeout-scale", scale, "--", "aopconform", "engine", "--protocol", f.Protocol, "--fault", f.Fault}}
		// In-process on virtual time (playEngine), but the aos guardian's
		// (served over the network: real, 0.1-0.2 s a run).
		j.inproc = slices.Contains(inProcessProtocols, f.Protocol) && !*engineReal
		// A fault that fails at least its declared checks plays only the
		// scenarios of those checks; one that fails exactly them plays the whole
		// suite.
		if !f.Exact {
			j.fail = f.Fails
		}
		jobs = append(jobs, j)
	}
	for _, j := range jobs {
		if j.fail != nil {
			// Judged on the checks it must fail (cheaper: the other scenarios
			// are not played).
			k := slices.Index(j.args, "--")
			j.args = slices.Concat(j.args[:k], []string{"--run", strings.Join(j.fail, ",")}, j.args[k:])
		}
	}
	// The in-process runs first, one after another, before the test turns
	// parallel (they keep the CPUs busy; the real runs mostly wait).
	start, played := time.Now(), 0
	for _, j := range jobs {
		if !j.inproc {
			continue
		}
		played++
		run := ""
		if k := slices.Index(j.args, "--run"); k >= 0 {
			run = j.args[k+1]
		}
		j.rep, j.err = playEngine(t, j.protocol, j.fault, run)
		if j.err == nil {
			j.code, j.out = aopconformcmd.ExitFor(j.rep), reportText(j.rep)
		}
	}
	t.Logf("%d runs in-process: %s", played, time.Since(start).Round(time.Millisecond))
	// Its real orchestrators mostly wait on the scenarios' clocks: beside the
	// other real-process tests (parallel, after the in-process ones).
	t.Parallel()
	// The longest runs first: every run waits on its scenarios' clocks, and a
	// long one started last would set the test's end.
	var real []int
	var args [][]string
	for i, j := range jobs {
		if !j.inproc {
			real, args = append(real, i), append(args, j.args)
		}
	}
	var wg sync.WaitGroup
	dir := t.TempDir()
	// At most this many runs at once: every run plays its scenarios in parallel,
	// and a machine saturated by all of them at once starts orchestrators late
	// enough to spoil scenario deadlines.
	next := make(chan int, len(jobs))
	for _, i := range longestFirst(t, args) {
		next <- real[i]
	}
	close(next)
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				j.code, j.out, j.rep, j.err = runConform(filepath.Join(dir, strings.Repeat("r", i+1)), j.args...)
			}
		}()
	}
	wg.Wait()
	// An engine fault that failed no check, or not every check it must fail, had
	// its evidence spoiled by the load (a flood read slower than it came: the
	// rate check is then NOT-TESTED, never a failure): it is played again, alone,
	// at most twice.
	for i, j := range jobs {
		for try := 0; try < 2 && !j.inproc && j.engineFault != "" && j.err == nil && j.code != 2 && spoiled(j.fails, orchFailed(j.rep)) && !*update; try++ {
			t.Logf("%s failed no check: played again", j.name)
			j.code, j.out, j.rep, j.err = runConform(filepath.Join(dir, fmt.Sprintf("again-%d-%d", i, try)), j.args...)
		}
	}
	failedSomewhere := map[string]bool{}
	for _, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			if j.err != nil {
				t.Fatal(j.err)
			}
			if *update {
				if j.engine && !j.inproc {
					writeReferenceDecisions(t, j.rep)
				}
				return
			}
			if j.engineFault != "" {
				if j.code == 2 {
					t.Fatalf("harness error\n%s", clipOut(j.out))
				}
				failed := orchFailed(j.rep)
				if len(j.fails) == 0 {
					t.Errorf("no checks declared: name in the fault's Fails (conform/engine/%s/faults.go) the checks it fails (it failed %v)", j.protocol, failed)
				} else if code := exitForFailing(j.fails); j.code != code {
					t.Errorf("exit %d, want %d\n%s", j.code, code, clipOut(j.out))
				}
				if want := slices.Sorted(slices.Values(j.fails)); j.exact && !slices.Equal(failed, want) {
					t.Errorf("failed %v, want exactly %v (the fault's Fails, Exact)\n%s", failed, want, clipOut(j.out))
				}
				for _, id := range j.fails {
					if !slices.Contains(failed, id) {
						t.Errorf("%s does not fail, yet the engine's Faults() names it (failed: %v)\n%s", id, failed, clipOut(j.out))
					}
				}
				for _, c := range failed {
					failedSomewhere[c] = true
					t.Logf("fails %s", c)
				}
				if len(failed) == 0 {
					t.Error("the engine fault fails no orchestrator-side check")
				}
				return
			}
			// The comparison with the engine is reported, never scored: judged for
			// the engine itself below.
			failed := orchFailed(j.rep)
			for _, c := range failedChecks(j.rep) {
				failedSomewhere[c] = true
			}
			if j.fail == nil {
				if j.code != 0 {
					t.Fatalf("exit %d, want 0\n%s", j.code, clipOut(j.out))
				}
				for _, r := range j.rep.Results {
					if strings.Contains(r.Check, "/orch/ref/") && !j.engine {
						continue // another orchestrator may decide otherwise than the engine where the engine has a gap
					}
					if r.Verdict == conform.NotTested && r.Level != conform.MUST {
						continue // a SHOULD whose cue a loaded machine spoiled (a flood spread over a second)
					}
					if r.Verdict != conform.Pass && r.Verdict != conform.Known {
						t.Errorf("%s in %s: %s (%s)", r.Check, r.Scenario, r.Verdict, r.Message)
					}
				}
				if j.name != "engine" && j.rep.Score.Level != conform.Full {
					// The aop2 engine lacks fallback (its known-failing file): level Resilient.
					t.Errorf("level %q, want Full", j.rep.Score.Level)
				}
				return
			}
			if wantCode := exitForFailing(j.fail); j.code != wantCode {
				t.Errorf("exit %d, want %d\n%s", j.code, wantCode, clipOut(j.out))
			}
			want := append([]string(nil), j.fail...)
			sort.Strings(want)
			if strings.Join(failed, " ") != strings.Join(want, " ") {
				t.Errorf("failed checks\n got %v\nwant %v\n%s", failed, want, clipOut(j.out))
			}
		})
	}
	if len(jobs) > 2 && !*update {
		for _, c := range conform.Checks("") {
			if strings.Contains(c.ID, "/orch/") && !strings.Contains(c.ID, "/orch/ref/") && !failedSomewhere[c.ID] {
				t.Errorf("%s is never seen failing", c.ID)
			}
		}
	}
}

// orchFailed lists the orchestrator-side checks rep fails (the comparison with
// the engine aside: reported, never scored).
func orchFailed(rep *conform.Report) []string {
	if rep == nil {
		return nil
	}
	var out []string
	for _, c := range failedChecks(rep) {
		if !strings.Contains(c, "/orch/ref/") {
			out = append(out, c)
		}
	}
	return out
}

// exitForFailing is the exit code of a run whose failures are checks: 1 when
// one is a MUST, 0 when only SHOULDs fail.
func exitForFailing(checks []string) int {
	for _, id := range checks {
		if c := conform.LookupCheck(id); c == nil || c.Level == conform.MUST {
			return 1
		}
	}
	return 0
}

// spoiled reports whether an engine fault's run failed none of its checks or
// not every check it declares it fails (fault.Fault.Fails).
func spoiled(declared, failed []string) bool {
	if len(failed) == 0 {
		return true
	}
	for _, id := range declared {
		if !slices.Contains(failed, id) {
			return true
		}
	}
	return false
}

// longestFirst orders runs of aopconform (each its arguments: --side,
// --protocol and --run are read from them) by the longest deadline among the
// scenarios each plays, then by their number, longest first: it returns the
// runs' indices in that order.
func longestFirst(t *testing.T, runs [][]string) []int {
	t.Helper()
	agentSide, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	orchSide, err := orchside.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	type cost struct {
		longest time.Duration
		n       int
	}
	costs := make([]cost, len(runs))
	for i, args := range runs {
		flag := func(name string) string {
			if k := slices.Index(args, name); k >= 0 && k+1 < len(args) && k < slices.Index(args, "--") {
				return args[k+1]
			}
			return ""
		}
		all := agentSide
		if flag("--side") == orchside.SideOrchestrator {
			all = orchSide
		}
		for _, sc := range all {
			if sc.Protocol == flag("--protocol") && slices.ContainsFunc(sc.Checks, func(id string) bool { return runner.Selected(id, flag("--run"), "") }) {
				costs[i].longest = max(costs[i].longest, sc.Deadline.D(1))
				costs[i].n++
			}
		}
	}
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(costs[b].longest, costs[a].longest), cmp.Compare(costs[b].n, costs[a].n))
	})
	return order
}

// engineFaultListed is one fault of `aopconform engine-faults --format json`.
type engineFaultListed struct {
	Protocol string   `json:"protocol"`
	Fault    string   `json:"fault"`
	Fails    []string `json:"fails"`
	Exact    bool     `json:"exact"`
}

// listEngineFaults lists the engines' faults as `aopconform engine-faults
// --format json` prints them, with the checks each declares it fails.
func listEngineFaults(t *testing.T) []engineFaultListed {
	t.Helper()
	out, err := exec.Command("aopconform", "engine-faults", "--format", "json").Output()
	if err != nil {
		t.Fatalf("aopconform engine-faults: %v", err)
	}
	var list []engineFaultListed
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("aopconform engine-faults --format json: %v", err)
	}
	if len(list) == 0 {
		t.Fatal("aopconform engine-faults lists no fault")
	}
	return list
}

// writeReferenceDecisions stores the engine's decision sequence of each scenario
// next to the scenario file (-update): the expected side of the
// <protocol>/orch/ref/engine-decisions comparison.
func writeReferenceDecisions(t *testing.T, rep *conform.Report) {
	t.Helper()
	sources := map[string]string{}
	for _, s := range rep.Scenarios {
		sources[s.ID] = s.Source
	}
	for _, r := range rep.Results {
		if !strings.HasSuffix(r.Check, "/orch/ref/engine-decisions") || r.Actual == "" {
			continue
		}
		src := sources[r.Scenario]
		if src == "" || filepath.IsAbs(src) {
			t.Fatalf("scenario %s: source %q is not a shipped scenario", r.Scenario, src)
		}
		path := filepath.Join("..", "..", "fixtures", "orchestrator-scenarios", strings.TrimSuffix(filepath.FromSlash(src), ".json")+".decisions")
		if err := os.WriteFile(path, []byte(r.Actual+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestForgePort runs the port of forge's legacy orchestrator (the orchmsg
// upstream, testdata/orchestrators/forge_port.mjs) as it ships: a daemon that
// passes its agent its own arguments, logs JSON to stdout and writes its
// workspaces under a fixed root (issue 29, "Done when"). Under the sandbox the
// report names the refused write and the exit status; with the documented
// allowance it reaches the scenarios, and each deviation a scenario exercises is
// named by its check: the task_notification assignment, INTERNAL_ERROR for a
// missing task and for a malformed request, no own-task check, query-agents
// ignoring status, no notify:task-cancelled, no request timeout. Its per-chunk
// stdout parsing loses a request when two lines share a chunk (the scenarios
// other than the happy path pace the agent's requests, request_gap_ms, so that
// their cues reach it): then the correlation check names it, and the ask-user
// answer may never be asked for, so either of the two is required.
func TestForgePort(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real orchestrator")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node: the forge port is not run")
	}
	t.Parallel()
	scale := "1"
	if raceEnabled {
		scale = "3"
	}
	// Each run its own workspace root (they run at once: the allowed run's
	// workspaces must not be there for the sandboxed one).
	var ws, env []string
	for range 2 {
		d := filepath.Join(t.TempDir(), "forge-workspaces")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		ws, env = append(ws, d), append(env, "FORGE_WORKSPACES="+d)
	}
	port := filepath.Join(orchestratorsDir, "forge_port.mjs")
	// The deviations a scenario exercises, each named by its check (the last two:
	// either, see below).
	deviations := []string{"orchmsg/orch/notify/task-assigned", "orchmsg/orch/errors/foreign-task", "orchmsg/orch/errors/invalid-request",
		"orchmsg/orch/errors/not-found", "orchmsg/orch/resp/query-filters", "orchmsg/orch/notify/task-cancelled", "orchmsg/orch/errors/timeout",
		"orchmsg/orch/parse/lines"}
	run := append(append([]string(nil), deviations...), "orchmsg/orch/resp/fits-request", "orchmsg/orch/corr/response-correlation")
	base := []string{"--side", "orchestrator", "--protocol", "orchmsg", "--timeout-scale", scale, "--pass-env", "FORGE_WORKSPACES", "--run", strings.Join(run, ",")}

	// The two runs at once (each mostly waits on its scenarios' clocks): as it
	// ships, under the sandbox; and with the documented allowance.
	type result struct {
		code int
		out  string
		rep  *conform.Report
		err  error
	}
	var shipped, allowed result
	dirs := []string{t.TempDir(), t.TempDir()}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		shipped.code, shipped.out, shipped.rep, shipped.err = runConformEnv(dirs[0], env[:1], append(append([]string(nil), base...), "--", "node", port)...)
	}()
	allowed.code, allowed.out, allowed.rep, allowed.err = runConformEnv(dirs[1], env[1:], append(append([]string(nil), base...), "--allow-write", ws[1], "--", "node", port)...)
	wg.Wait()

	// As it ships, under the sandbox: refused, and told so first.
	code, out, err := shipped.code, shipped.out, shipped.err
	if err != nil {
		t.Fatal(err)
	}
	if code == 2 {
		t.Fatalf("harness error\n%s", clipOut(out))
	}
	if agentio.LandlockABI() > 0 {
		for _, want := range []string{"NO PROTOCOL MESSAGE: the implementation never spoke; it ended with exit 1", "SANDBOX:", "EACCES: permission denied, mkdir"} {
			if !strings.Contains(out, want) {
				t.Errorf("without --allow-write, the report lacks %q\n%s", want, clipOut(out))
			}
		}
	}

	// With the documented allowance.
	code, out, rep, err := allowed.code, allowed.out, allowed.rep, allowed.err
	if err != nil {
		t.Fatal(err)
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, clipOut(out))
	}
	failed := failedChecks(rep)
	for _, id := range deviations {
		if !slices.Contains(failed, id) {
			t.Errorf("%s does not fail (failed: %v)\n%s", id, failed, clipOut(out))
		}
	}
	if !slices.Contains(failed, "orchmsg/orch/resp/fits-request") && !slices.Contains(failed, "orchmsg/orch/corr/response-correlation") {
		t.Errorf("neither the ask-user answer nor a request lost to per-chunk parsing is named (failed: %v)\n%s", failed, clipOut(out))
	}
	if strings.Contains(out, "NO PROTOCOL MESSAGE") {
		t.Errorf("with --allow-write it still never spoke\n%s", clipOut(out))
	}
}

// TestEngineFaultChecksDeclared: every engine fault names the checks its run
// fails (fault.Fault.Fails), each an orchestrator-side check of its protocol,
// and `aopconform engine-faults` prints them and whether they are exact.
func TestEngineFaultChecksDeclared(t *testing.T) {
	n := 0
	for _, p := range protocols.List {
		if p.EngineFaults == nil {
			continue
		}
		for _, f := range p.EngineFaults() {
			n++
			if len(f.Fails) == 0 {
				t.Errorf("%s engine fault %s declares no checks", p.ID, f.Name)
			}
			for _, id := range f.Fails {
				if c := conform.LookupCheck(id); c == nil || c.Protocol != p.ID || !strings.Contains(id, "/orch/") {
					t.Errorf("%s engine fault %s: %s is not an orchestrator-side check of %s", p.ID, f.Name, id, p.ID)
				}
			}
		}
	}
	var out, errb strings.Builder
	if code := run([]string{"aopconform", "engine-faults", "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var list []engineFaultListed
	if err := json.Unmarshal([]byte(out.String()), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Fatalf("engine-faults lists %d faults, the engines %d", len(list), n)
	}
	for _, f := range list {
		p := protocols.Lookup(f.Protocol)
		if want := fault.Lookup(p.EngineFaults(), f.Fault); want == nil || !slices.Equal(f.Fails, want.Fails) || f.Exact != want.Exact {
			t.Errorf("%s %s: engine-faults prints fails %v (exact %v), the engine declares %+v", f.Protocol, f.Fault, f.Fails, f.Exact, want)
		}
	}
}
