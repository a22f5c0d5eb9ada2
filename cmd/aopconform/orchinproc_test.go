package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/lintstep"
	"github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/conform/runner"
	aopconformcmd "github.com/aopkit/aopkit/internal/cmd/aopconform"
	mockagentcmd "github.com/aopkit/aopkit/internal/cmd/mockagent"
)

// engineCommand is the command line of the reference engine as the
// orchestrator under test (`aopconform engine --protocol P [--fault F]`).
func engineCommand(protocol, fault string) []string {
	cmd := []string{"aopconform", "engine", "--protocol", protocol}
	if fault != "" {
		cmd = append(cmd, "--fault", fault)
	}
	return cmd
}

// playEngine plays the orchestrator-side scenarios of protocol that run
// selects ("" for all) against the reference engine playing fault ("" for
// none), as `aopconform run --side orchestrator --protocol P [--run RUN] --
// aopconform engine --protocol P [--fault F]` judges it, in-process on virtual
// time: the engine runs in a goroutine (aopconformcmd.EngineProgram through
// agentio.Func), and so does every agent it launches (the agent command the
// driver writes, $AOPKIT_AGENT, read back by orchside.AgentCommand and run by
// mockagentcmd.RunInProcess with its --observe), inside a testing/synctest
// bubble. What a process has and a goroutine has not is modelled by
// agentio.Func (SIGTERM trapped or not, SIGKILL) or absent: no process group,
// no confinement, no sandbox (docs/development.md, "Tests on virtual time and
// real processes").
func playEngine(t *testing.T, protocol, fault, run string) (*conform.Report, error) {
	t.Helper()
	all, err := orchside.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	all = slices.DeleteFunc(all, func(sc *conform.Scenario) bool { return sc.Protocol != protocol })
	out := t.TempDir()
	var rep *conform.Report
	synctest.Test(t, func(t *testing.T) {
		rep, err = runner.Run(context.Background(), runner.Options{
			Protocol: protocol, Command: engineCommand(protocol, fault), Scenarios: all, Run: run, OutDir: out, Parallel: 1,
			Linter: lintstep.AOPLint{}, Driver: orchside.Driver("mockagent"), Judged: orchside.Judged,
			Launcher: agentio.Func{Run: engineInProcess},
		})
	})
	return rep, err
}

// engineInProcess is agentio.Func's program for the orchestrator under test:
// the reference engine, whose agents are mockagent in-process. When the engine
// has ended, each agent still running observes it (as --watch-orchestrator
// does) and is then killed, as the harness's clean-up kills what a real
// orchestrator left running.
func engineInProcess(ctx context.Context, p agentio.Program) agentio.Exit {
	done := make(chan struct{})
	var agents *trackedLauncher
	exit := aopconformcmd.EngineProgram(func(orch agentio.Program) agentio.Launcher {
		agents = &trackedLauncher{l: agentio.Func{Run: func(ctx context.Context, a agentio.Program) agentio.Exit {
			if len(a.Spec.Args) == 0 {
				fmt.Fprintln(a.Stderr, "no agent command")
				return agentio.Exit{Code: 127}
			}
			env, args, err := orchside.AgentCommand(a.Spec.Args[0])
			if err != nil {
				fmt.Fprintln(a.Stderr, err)
				return agentio.Exit{Code: 127}
			}
			// The orchestrator's environment, the launch's, then what the
			// agent command sets itself.
			proc := mockagentcmd.Proc{Dir: a.Spec.Dir, PID: a.PID, Stdin: a.Stdin, Stdout: a.Stdout, Stderr: a.Stderr, Term: a.Term}
			return agentio.Exit{Code: mockagentcmd.RunInProcess(ctx, proc, slices.Concat(args, a.Spec.Args[1:]), slices.Concat(orch.Spec.Env, a.Spec.Env, env), orch.PID, done)}
		}}}
		return agents
	})(ctx, p)
	close(done)
	if agents != nil {
		// The agents' watch records the end first (on virtual time this
		// waits until every other goroutine of the bubble is blocked).
		time.Sleep(time.Millisecond)
		agents.killAll()
	}
	return exit
}

// trackedLauncher remembers what it launched, for the clean-up.
type trackedLauncher struct {
	l     agentio.Launcher
	mu    sync.Mutex
	conns []agentio.Conn
}

func (t *trackedLauncher) Launch(ctx context.Context, spec agentio.Spec) (agentio.Conn, error) {
	c, err := t.l.Launch(ctx, spec)
	if err == nil {
		t.mu.Lock()
		t.conns = append(t.conns, c)
		t.mu.Unlock()
	}
	return c, err
}

func (t *trackedLauncher) killAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.conns {
		c.Kill()
	}
}

// equivalence plays every engine fault both ways (TestEngineInProcessEquivalence).
var equivalence = flag.Bool("inproc-equivalence", false, "play every engine fault in-process and as real processes, and compare the verdicts")

// engineReal plays every engine run of TestOrchestratorSide as a real process,
// as before the in-process path (to compare, or to rule it out).
var engineReal = flag.Bool("engine-real", false, "TestOrchestratorSide: play the engine faults as real processes, none in-process")

// inProcessProtocols are the protocols whose engine plays in-process (aos's
// guardian serves over the network: its runs stay real, 0.1-0.2 s each).
var inProcessProtocols = []string{"aop2", "orchmsg", "aof", "aop-output"}

// TestEngineInProcessEquivalence (-inproc-equivalence; minutes of real runs)
// plays the correct engine and every engine fault of inProcessProtocols on
// the whole suite twice: in-process on virtual time (playEngine) and as real
// processes (`aopconform run --side orchestrator`), and compares every
// result's verdict, (check, scenario) by (check, scenario).
func TestEngineInProcessEquivalence(t *testing.T) {
	if !*equivalence {
		t.Skip("-inproc-equivalence not given")
	}
	type run struct {
		protocol, fault string
		real, inproc    *conform.Report
		code            int
		out             string
		err             error
	}
	var runs []*run
	for _, f := range listEngineFaults(t) {
		if slices.Contains(inProcessProtocols, f.Protocol) {
			runs = append(runs, &run{protocol: f.Protocol, fault: f.Fault})
		}
	}
	for _, p := range inProcessProtocols {
		runs = append(runs, &run{protocol: p})
	}
	for _, r := range runs {
		rep, err := playEngine(t, r.protocol, r.fault, "")
		if err != nil {
			t.Fatalf("%s %s in-process: %v", r.protocol, r.fault, err)
		}
		r.inproc = rep
	}
	dir := t.TempDir()
	next := make(chan int, len(runs))
	for i := range runs {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := runs[i]
				args := append([]string{"--side", "orchestrator", "--protocol", r.protocol, "--"}, engineCommand(r.protocol, r.fault)...)
				r.code, r.out, r.real, r.err = runConform(filepath.Join(dir, fmt.Sprint(i)), args...)
			}
		}()
	}
	wg.Wait()
	results, differ, understood := 0, 0, 0
	for _, r := range runs {
		if r.err != nil {
			t.Errorf("%s %s: %v", r.protocol, r.fault, r.err)
			continue
		}
		verdicts := func(rep *conform.Report) map[string]conform.Verdict {
			m := map[string]conform.Verdict{}
			for _, res := range rep.Results {
				m[res.Check+" in "+res.Scenario] = res.Verdict
			}
			return m
		}
		real, in := verdicts(r.real), verdicts(r.inproc)
		keys := slices.Sorted(maps.Keys(real))
		for k := range in {
			if _, ok := real[k]; !ok {
				keys = append(keys, k)
			}
		}
		var diffs []string
		for _, k := range keys {
			results++
			if real[k] == in[k] {
				continue
			}
			differ++
			d := fmt.Sprintf("%s: real %s, in-process %s", k, real[k], in[k])
			if why := timingDifference(r.protocol, r.fault, k, real[k], in[k]); why != "" {
				understood++
				t.Logf("%s engine fault %q: %s (%s)", r.protocol, r.fault, d, why)
				continue
			}
			diffs = append(diffs, d)
		}
		if code := aopconformcmd.ExitFor(r.inproc); code != r.code && (len(diffs) > 0 || r.fault != orchmsgParseChunks && r.code != exitHarnessCode) {
			diffs = append(diffs, fmt.Sprintf("exit: real %d, in-process %d", r.code, code))
		}
		if len(diffs) > 0 {
			t.Errorf("%s engine fault %q: %d of %d results differ\n%s\nreal:\n%s\nin-process:\n%s", r.protocol, r.fault, len(diffs), len(keys), strings.Join(diffs, "\n"), clipOut(r.out), clipOut(reportText(r.inproc)))
		}
	}
	t.Logf("%d runs, %d results compared, %d differ (%d of them by a timing the real run is at the mercy of)", len(runs), results, differ, understood)
}

const (
	orchmsgParseChunks = "parse-chunks"
	exitHarnessCode    = 2 // a real run with a HARNESS-ERROR exits 2
)

// timingDifference says why a result may differ between a real run and an
// in-process one ("" when it must not). On virtual time the timings are the
// scenario's nominal ones; a real run on a loaded machine strays from them:
//   - the orchmsg engine's parse-chunks takes a line that arrives within 2 ms
//     of the one before as one chunk with it (lost): on virtual time every
//     line the agent writes back to back arrives at the same instant and is
//     lost, a real process spreads them by its scheduling (the real run is
//     FLAKY there, the in-process one always fails);
//   - the aof engine's reclaim-too-early and the agent's next step race at
//     nominal times 50 ms apart;
//   - a real run under heavy load (load 100) that could not be judged
//     (HARNESS-ERROR), or stumbled over aop-output's 256 KiB details file;
//   - a real run whose decisions the load changed (a poll late, a signal
//     after the agent's next step) WARNs on the comparison with the reference
//     decisions, which the in-process run matches, or is FLAKY.
func timingDifference(protocol, fault, key string, real, inproc conform.Verdict) string {
	switch {
	case protocol == "orchmsg" && fault == orchmsgParseChunks:
		return "parse-chunks' 2 ms chunk window: every back-to-back line on virtual time"
	case protocol == "aof" && fault == "reclaim-too-early":
		return "the early reclaim (a quarter TTL after the beat, polled every TTL/10) comes 50 ms before the agent's next step (TTL/3) at the nominal times: a late poll lets the step through"
	case strings.HasPrefix(key, protocol+"/orch/ref/engine-decisions ") && real == conform.Warn && inproc == conform.Pass:
		return "the load changed the real run's decisions"
	case real == conform.Flaky:
		return "the real run was flaky"
	case real == conform.HarnessError:
		return "the real run could not be judged (a harness error under load)"
	case strings.HasSuffix(key, " in orch-aop-output-large-details") && inproc == conform.Pass:
		return "the 256 KiB details file, read and written slowly by real processes under load"
	}
	return ""
}
