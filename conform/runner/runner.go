// Package runner plays scenarios against an agent under test: for each scenario it
// makes a scratch directory, launches the agent, plays the orchestrator side of the
// protocol, records a transcript/1 JSONL file, lints every agent message and judges
// the scenario's checks.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/harness"
)

// Linter lints a transcript/1 stream with every single-message and sequence rule.
type Linter interface {
	LintTranscript(name string, r io.Reader) ([]Diag, error)
}

// RootedLinter is a Linter that can be told the directory the agent ran in (its
// scratch directory), against which paths inside its messages are resolved
// (aop-output DETAILS_FILE: a details file missing there is an error).
type RootedLinter interface {
	LintTranscriptIn(name, root string, r io.Reader) ([]Diag, error)
}

// Diag is one lint diagnostic; Line is the 1-based transcript line (= record seq).
type Diag struct {
	Line     int
	Rule     string
	Severity string // error, warning, info
	Message  string
	Pointer  string
	Spec     string
	// Measured and Limit are a timing rule's measurement and limit (zero Limit:
	// none): the margin of the check that takes the finding.
	Measured, Limit time.Duration
}

// Options configure a run.
type Options struct {
	Protocol  string
	Command   []string
	Scenarios []*conform.Scenario
	// Run and Skip select checks by ID (comma-separated substrings or globs).
	Run, Skip string
	Parallel  int     // scenarios at once (default: number of CPUs, at least 2)
	Scale     float64 // --timeout-scale (default 1)
	OutDir    string  // transcripts go here, or in a new directory inside it when it exists (RunDir)
	Launcher  agentio.Launcher
	Linter    Linter // nil: no lint step
	// RerunArgs are the flags that rerun commands repeat (--scenarios DIR, ...).
	RerunArgs []string
	// Progress, when set, gets one line per finished scenario.
	Progress io.Writer
	// Strict makes NOT-APPLICABLE fail (--strict): for certifiers who require
	// every MUST exercised.
	Strict bool
	// Repeat runs every scenario this many times (--repeat; default 1) and
	// reports per-check pass rates.
	Repeat int
	// NoConfirm skips the confirmation run of a scenario whose timing check failed
	// in its single run (then a timing failure is final at once).
	NoConfirm bool
	// PassEnv names variables of the harness's environment the agent gets besides
	// the allowlist (--pass-env; see agentio.AgentEnv).
	PassEnv []string
	// Policy is what the agent may read, write and use (--allow-read, ...).
	Policy agentio.Policy

	// Driver, when set, plays every scenario instead of the protocol's driver: the
	// orchestrator side (conform/orchside) runs the orchestrator under test with it.
	Driver func(h *harness.H) error
	// Judged is the "from" of the records under test ("" = "agent"): their lint
	// findings count, and a run in which they sent no protocol message scores zero.
	Judged conform.Actor

	launchCommand []string // Command with a relative program path made absolute
	// play plays one run of a scenario (runScenario when nil): tests fake runs,
	// and the harness's slip, with it.
	play runFunc
	// createTranscript opens a transcript file for writing (CreateNew when nil):
	// tests fail its writes, as a full disk does.
	createTranscript func(path string) (io.WriteCloser, error)
	// scratch owns the run's scratch directories (nil: unowned, never cleaned
	// up by a later run).
	scratch *scratchOwner
}

// judged is the "from" of the party under test.
func (o Options) judged() conform.Actor {
	if o.Judged == "" {
		return conform.ActorAgent
	}
	return o.Judged
}

// ErrNothingSelected is returned when --run/--skip leave no check of the protocol.
var ErrNothingSelected = errors.New("no check of the protocol is selected by --run/--skip")

// Selected reports whether a check ID is selected by run/skip patterns.
func Selected(id, run, skip string) bool {
	if run != "" && !conform.MatchAny(id, run) {
		return false
	}
	if skip != "" && conform.MatchAny(id, skip) {
		return false
	}
	return true
}

// Run plays every scenario of opts.Protocol. The error is for the harness as a
// whole (bad options, no output directory); failures inside one scenario are
// reported in its ScenarioRun and counted in Report.HarnessErrors.
func Run(ctx context.Context, opts Options) (*conform.Report, error) {
	if !conform.KnownProtocol(opts.Protocol) {
		return nil, fmt.Errorf("unknown protocol %q (one of %v)", opts.Protocol, conform.Protocols)
	}
	if len(opts.Command) == 0 {
		return nil, errors.New("no agent command (give it after --)")
	}
	if opts.Scale <= 0 {
		opts.Scale = 1
	}
	if opts.Parallel <= 0 {
		opts.Parallel = defaultParallel()
	}
	if opts.Launcher == nil {
		opts.Launcher = agentio.Process{MaxOutput: harness.MaxAgentBytes, PassEnv: opts.PassEnv, Policy: opts.Policy}
	}
	lc, err := absCommand(opts.Command)
	if err != nil {
		return nil, err
	}
	opts.launchCommand = lc
	if _, ok := Driver(opts.Protocol); !ok && opts.Driver == nil {
		return nil, fmt.Errorf("protocol %s has no driver", opts.Protocol)
	}
	var scs []*conform.Scenario
	any := false
	for _, s := range opts.Scenarios {
		if s.Protocol != opts.Protocol {
			continue
		}
		scs = append(scs, s)
		for _, id := range selectableIDs(s) {
			if Selected(id, opts.Run, opts.Skip) {
				any = true
			}
		}
	}
	if len(scs) == 0 {
		return nil, fmt.Errorf("no scenario for protocol %s", opts.Protocol)
	}
	if !any {
		return nil, ErrNothingSelected
	}
	if opts.OutDir == "" {
		opts.OutDir = "aopconform-out"
	}
	runDir, err := RunDir(opts.OutDir)
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	opts.OutDir = runDir
	// Scratch directories a killed run left behind go before this run makes its
	// own; without a lock (no flock here) they stay unowned, as before.
	cleanStale(os.TempDir())
	if owner, err := claimScratch(os.TempDir()); err == nil {
		opts.scratch = owner
		defer owner.release()
	}
	rep := &conform.Report{
		Schema: conform.ReportSchema, Protocol: opts.Protocol, Command: opts.Command,
		Started: time.Now().UTC(), OutDir: opts.OutDir,
	}
	runs := make([]conform.ScenarioRun, len(scs))
	results := make([][]conform.Result, len(scs))
	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	var progMu sync.Mutex
	for i, sc := range scs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[i], results[i] = runRepeated(ctx, opts, sc)
			// Judged: the digest of the whole transcript, then only the
			// records a report reads stay in memory.
			id := conform.DigestTranscript(runs[i])
			runs[i].TranscriptID = &id
			conform.TrimRecords(&runs[i])
			if opts.Progress != nil {
				progMu.Lock()
				fmt.Fprintf(opts.Progress, "%-40s %s\n", sc.ID, scenarioSummary(runs[i], results[i]))
				progMu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep.Containment = conform.ContainmentOf(runs)
	// An agent that never answers scores zero: when it sent no protocol message in
	// any scenario, nothing it owes passes (not even vacuously).
	spoke := false
	for i := range scs {
		spoke = spoke || runs[i].Spoke
	}
	if !spoke {
		// Say what happened instead: how it ended, and what the sandbox refused
		// it (its own stderr's words).
		what := "the " + string(opts.judged()) + " never sent a protocol message in any scenario"
		silence := what // the consequences' reason; the root's message also says how it ended
		actual := "none"
		if ex := conform.ExitSummary(runs); ex != "" {
			what += ": " + ex
			actual += "; " + ex
			if rep.Containment == nil {
				rep.Containment = &conform.Containment{}
			}
			rep.Containment.Exits = ex
			rep.Containment.Errors = conform.ErrorLines(runs, 3)
		}
		if c := rep.Containment; c != nil && len(c.Refusals) > 0 {
			// The refusal that names a path says most (Node prints its error
			// object over several lines: "code: 'EACCES'," is one of them).
			ref := c.Refusals[0]
			for _, l := range c.Refusals {
				if strings.Contains(l, "/") {
					ref = l
					break
				}
			}
			what += "; its stderr reports a refused operation: " + ref + " (allow it with --allow-write PATH or --allow-read PATH)"
		}
		silenceIsRoot(results, runs, func(root *conform.Result) {
			root.Verdict, root.Message, root.DependsOn = conform.Fail, what, ""
			root.Expected, root.Actual = "protocol messages from the "+string(opts.judged()), actual
			root.Rerun = RerunCommand(opts, root.Check)
		}, silence)
	}
	for i := range scs {
		rep.Scenarios = append(rep.Scenarios, runs[i])
		rep.Results = append(rep.Results, results[i]...)
		herr := runs[i].HarnessError != ""
		for _, r := range results[i] {
			herr = herr || r.Verdict == conform.HarnessError
		}
		if herr {
			rep.HarnessErrors++
		}
	}
	// One root cause, one failure: a failure whose declared root cause (the
	// check's After) fails in the same scenario is NOT-JUDGED under it, and a
	// NOT-JUDGED result stays so only while the check it depends on reports the
	// cause. Both sides' checks declare their causes (on the orchestrator side
	// only the aos guardian's do, under aos/orch/bind/listens: a guardian that
	// never listens, and so never spoke, fails that check alone).
	conform.ApplyCauses(rep.Results)
	conform.ResolveDependencies(rep.Results)
	sort.SliceStable(rep.Results, func(i, j int) bool {
		if rep.Results[i].Check != rep.Results[j].Check {
			return rep.Results[i].Check < rep.Results[j].Check
		}
		return rep.Results[i].Scenario < rep.Results[j].Scenario
	})
	rep.Score = conform.ScoreResults(opts.Protocol, rep.Results)
	rep.DurationMS = time.Since(rep.Started).Milliseconds()
	return rep, nil
}

// absCommand makes the command line work from the scratch directory the agent runs
// in: a relative program path, and every relative argument that names an existing
// file or directory where aopconform was started, become absolute.
func absCommand(cmd []string) ([]string, error) {
	out := append([]string(nil), cmd...)
	for i, a := range out {
		if filepath.IsAbs(a) || !conform.FileArg(i, a) {
			continue
		}
		if _, err := os.Stat(a); err != nil {
			continue
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, err
		}
		out[i] = abs
	}
	return out, nil
}

func defaultParallel() int {
	n := runtime.NumCPU()
	if n < 2 {
		n = 2
	}
	return n * 2
}

func scenarioSummary(run conform.ScenarioRun, rs []conform.Result) string {
	if run.HarnessError != "" {
		return "HARNESS ERROR: " + run.HarnessError
	}
	counts := map[conform.Verdict]int{}
	for _, r := range rs {
		counts[r.Verdict]++
	}
	var parts []string
	for _, v := range []conform.Verdict{conform.Pass, conform.Fail, conform.Warn, conform.Flaky, conform.HarnessError, conform.NotTested, conform.NotApplicable, conform.NotJudged, conform.Skip} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
		}
	}
	s := strings.Join(parts, ", ") + fmt.Sprintf(" (%dms)", run.DurationMS)
	for _, e := range run.Escalations {
		s += fmt.Sprintf("; run %d at --timeout-scale %s", e.Run, formatScale(e.TimeoutScale))
	}
	return s
}

// SlipTolerance is how late the harness's own timers may fire (× --timeout-scale)
// before it no longer trusts a failed timing verdict: the machine was too slow to
// judge, a HARNESS-ERROR, never the agent's failure.
const SlipTolerance = 500 * time.Millisecond

// FlakyFloor is the part of FlakyTolerance that no measured slip explains: the
// scheduling noise of reading a line, of a timer that fired on time.
const FlakyFloor = 50 * time.Millisecond

// FlakyTolerance is how far over its limit a timing check may have failed, in a
// run whose harness timers were late by up to slipMS, and still be FLAKY when
// another run passed: twice that slip plus FlakyFloor, × scale. A failure beyond
// it is the agent's (FAIL), whatever the other run did (docs/aopconform.md
// "Verdicts").
func FlakyTolerance(slipMS int64, scale float64) time.Duration {
	return 2*time.Duration(slipMS)*time.Millisecond + time.Duration(float64(FlakyFloor)*scale)
}

// runRepeated plays a scenario opts.Repeat times (at least once) and merges the
// verdicts. A single run whose timing check failed or warned (or that hit the
// deadline with a failing verdict: failing) is confirmed by one more run: a timing
// check that fails once and passes once is FLAKY, neither a pass nor a violation
// (one that warns once and passes once, a PASS with a note). A check that failed in every run while the
// harness's own timers were late beyond their tolerance is judged once more at a
// slower timescale (escalate).
func runRepeated(ctx context.Context, opts Options, sc *conform.Scenario) (conform.ScenarioRun, []conform.Result) {
	play := opts.play
	if play == nil {
		play = runScenario
	}
	n := opts.Repeat
	if n < 1 {
		n = 1
	}
	first, res := play(ctx, opts, sc, 1)
	if first.Skipped || first.HarnessError != "" {
		return first, res
	}
	all := [][]conform.Result{res}
	slips := []int64{first.SlipMS}
	timedOut := first.TimedOut()
	for k := 2; k <= n; k++ {
		run, r := play(ctx, opts, sc, k)
		if run.HarnessError != "" {
			return run, r
		}
		all = append(all, r)
		slips = append(slips, run.SlipMS)
		timedOut = timedOut || run.TimedOut()
	}
	played := n
	if n == 1 && !opts.NoConfirm && needsConfirmation(res, timedOut, first.Spoke) {
		run, r := play(ctx, opts, sc, 2)
		played = 2
		if run.HarnessError != "" {
			// A failure the harness could not confirm is not the agent's.
			return first, unconfirmed(res, timedOut, first.Spoke, run.HarnessError)
		}
		all = append(all, r)
		slips = append(slips, run.SlipMS)
		first.Confirmed = true
	}
	if len(all) == 1 {
		return first, res
	}
	merged := mergeRuns(opts, all, slips, timedOut)
	if !opts.NoConfirm {
		escalate(ctx, opts, sc, play, &first, all, slips, merged, played+1)
	}
	return first, merged
}

// Bounds of escalation: at most MaxEscalations runs at a slower timescale per
// scenario, their scales at most MaxEscalationFactor × --timeout-scale, so that
// an agent that loads the machine (or a machine that stays loaded) stretches a
// scenario by a bounded factor, never without end.
const (
	MaxEscalations      = 2
	MaxEscalationFactor = 8
)

// slipTolerance is SlipTolerance at a timeout scale.
func slipTolerance(scale float64) time.Duration {
	return time.Duration(float64(SlipTolerance) * scale)
}

// escalationFactor is how much slower than scale to play a scenario whose runs
// had the harness's timers late by up to slip: the least whole factor (at least
// 2) whose scaled tolerance is twice that slip, at most room.
func escalationFactor(slip time.Duration, scale float64, room int) int {
	f := int(math.Ceil(2 * float64(slip) / float64(slipTolerance(scale))))
	return min(max(f, 2), room)
}

// escalate judges again, at a slower timescale, the checks mergeRuns left
// HARNESS-ERROR (failed in every run of all while the harness's timers were
// late beyond SlipTolerance × scale): it plays the scenario as run next, next+1,
// ... at --timeout-scale × f (escalationFactor), records each such run in
// first.Escalations and updates merged in place. A check that fails there with
// the timers within the scaled tolerance (or fails in a way no timing explains)
// is a FAIL: what the harness times stretches with the scale while the party under
// test keeps its own clock, so a slower timescale only gives it more room and a
// failure there is one at the requested scale too. A check that passes there,
// or is otherwise left unjudged, stays HARNESS-ERROR: a pass at a relaxed timescale
// is not one at the requested scale. A failure whose timers were late beyond the
// tolerance again is played once more, within MaxEscalations and
// MaxEscalationFactor.
func escalate(ctx context.Context, opts Options, sc *conform.Scenario, play runFunc, first *conform.ScenarioRun, all [][]conform.Result, slips []int64, merged []conform.Result, next int) {
	var pending []int
	for j := range merged {
		if merged[j].Verdict == conform.HarnessError {
			pending = append(pending, j)
		}
	}
	// merged is in mergeRuns' order of keys: its own keys name the same checks
	// in every run (a check judged more than once included).
	keys := checkKeys(merged)
	byRun := make([]map[checkKey]*conform.Result, len(all))
	for k, rs := range all {
		byRun[k] = byCheck(rs)
	}
	scale := scaleOf(opts)
	slip := time.Duration(slices.Max(slips)) * time.Millisecond
	factor := 1
	for e := 0; e < MaxEscalations && len(pending) > 0; e++ {
		room := MaxEscalationFactor / factor
		if room < 2 {
			break
		}
		factor *= escalationFactor(slip, scale*float64(factor), room)
		eo := opts
		eo.Scale = scale * float64(factor)
		run, res := play(ctx, eo, sc, next)
		got := byCheck(res)
		first.Escalations = append(first.Escalations, conform.Escalation{Run: next, TimeoutScale: eo.Scale, SlipMS: run.SlipMS, Transcript: run.Transcript, HarnessError: run.HarnessError})
		at := fmt.Sprintf("at --timeout-scale %s (run %d)", formatScale(eo.Scale), next)
		next++
		tol := slipTolerance(eo.Scale)
		slip = time.Duration(run.SlipMS) * time.Millisecond
		var again []int
		for _, j := range pending {
			r := &merged[j]
			r.EscalatedScale = eo.Scale
			if run.HarnessError != "" {
				r.Message += fmt.Sprintf("; %s the harness could not play the scenario: %s", at, run.HarnessError)
				continue
			}
			er := got[keys[j]]
			switch {
			case er != nil && er.Verdict == conform.Pass:
				r.Message += fmt.Sprintf("; %s it passed: a pass at a relaxed timescale is not a pass at the requested one", at)
			case er == nil || !failing(er.Verdict):
				v := conform.Verdict("not judged")
				if er != nil {
					v = er.Verdict
				}
				r.Message += fmt.Sprintf("; %s it was %s: no failure confirmed, and no pass at the requested scale", at, v)
			case slip > tol && timingDependent(er, run.TimedOut()):
				r.Message += fmt.Sprintf("; %s it failed again, the harness's timers late by up to %d ms there too (tolerance %s)", at, run.SlipMS, tol)
				again = append(again, j)
			case er.MarginMS != nil && *er.MarginMS >= 0 && er.CPUWaitMS > 0 && *er.MarginMS <= er.CPUWaitMS:
				r.Message += fmt.Sprintf("; %s it failed again by %d ms, while the implementation waited %d ms for a CPU", at, *er.MarginMS, er.CPUWaitMS)
				again = append(again, j)
			default:
				orig := er
				for _, m := range byRun {
					if f := m[keys[j]]; f != nil && failing(f.Verdict) {
						orig = f
						break
					}
				}
				why := fmt.Sprintf("the harness's timers late by up to %d ms, within its tolerance of %s", run.SlipMS, tol)
				if slip > tol {
					why = "a failure no timing explains"
				}
				r.Verdict = er.Verdict // FAIL, or WARN: the verdict confirmed there
				r.Message = fmt.Sprintf("%s — confirmed %s, %s (at --timeout-scale %s the harness's timers were late by more than %s in every run, by up to %d ms)",
					orig.Message, at, why, formatScale(scale), slipTolerance(scale), r.SlipMS)
				if er.Message != orig.Message {
					r.Message += "; there: " + er.Message
				}
			}
		}
		if run.HarnessError != "" {
			break
		}
		pending = again
	}
}

// runFunc plays one scenario (run k of it) and judges its checks: runScenario,
// or a test's fake (Options.play).
type runFunc func(ctx context.Context, opts Options, sc *conform.Scenario, k int) (conform.ScenarioRun, []conform.Result)

// unconfirmed turns the results of a single run that needed confirmation
// (needsConfirmation) into HARNESS-ERROR when the confirming run could not be
// played (herr): an unconfirmed timing failure or warning, or a MUST perhaps left
// unjudged by a slow run, is no verdict on the agent.
func unconfirmed(res []conform.Result, timedOut, spoke bool, herr string) []conform.Result {
	out := append([]conform.Result(nil), res...)
	for i := range out {
		r := &out[i]
		if (spoke && r.Verdict == conform.NotTested && r.Level == conform.MUST) || (failing(r.Verdict) && timingDependent(r, timedOut)) {
			r.Message = fmt.Sprintf("%s in run 1, and the run confirming it could not be played (harness error: %s): %s", r.Verdict, herr, r.Message)
			r.Verdict = conform.HarnessError
			r.Rerun = ""
		}
	}
	return out
}

// needsConfirmation: a failed timing check, a failure in a run that hit the
// scenario deadline (a WARN as much as a FAIL: failing), or a MUST left NOT-TESTED
// (a slow machine looks like a slow agent). A silent agent's NOT-TESTED is not
// confirmed: it scores zero anyway.
func needsConfirmation(res []conform.Result, timedOut, spoke bool) bool {
	for _, r := range res {
		if spoke && r.Verdict == conform.NotTested && r.Level == conform.MUST {
			return true // left unjudged: perhaps by a slow run (the agent stopped early)
		}
		if failing(r.Verdict) && timingDependent(&r, timedOut) {
			return true
		}
	}
	return false
}

// failing reports whether a check's verdict in one run holds something against the
// party under test that a slow machine may have caused: a FAIL, or a WARN (a
// warning the check gave, as aop-output/orch/ref/engine-decisions does when an
// orchestrator decided otherwise than the reference engine). Confirmation
// (needsConfirmation, unconfirmed), merging (mergeRuns) and escalation (escalate)
// treat the two alike; only a WARN that does not reproduce against a pass merges
// into a PASS where a FAIL is FLAKY (docs/aopconform.md "Verdicts").
func failing(v conform.Verdict) bool {
	return v == conform.Fail || v == conform.Warn
}

// mergeRuns combines the results of several runs of one scenario, check by check:
// the same verdict everywhere stays; a timing check (or any check of a scenario
// that hit its deadline, but for a failure on what the agent sent: Result.Sent)
// that passed in some runs and failed in others is FLAKY
// with the failing run's measurement, unless that measurement is over its limit by
// more than FlakyTolerance (the agent's failure); any other check that failed
// once fails. A
// timing check that failed in every run while the harness's own timers were late
// beyond SlipTolerance is a HARNESS-ERROR. A WARN merges as a FAIL does (failing:
// it stays WARN where a FAIL stays FAIL, and is HARNESS-ERROR where a FAIL would
// be), but for one case: a timing-dependent WARN within the tolerance against a
// passing run is a PASS, with a note of the warning in its message (where a FAIL
// is FLAKY). A run with a FAIL of the check outweighs one with its WARN.
func mergeRuns(opts Options, all [][]conform.Result, slips []int64, timedOut bool) []conform.Result {
	// The checks by ID (and occurrence): a run may judge one the others do not
	// (the containment check, judged where the agent wrote outside its scratch
	// directory).
	var keys []checkKey
	byRun := make([]map[checkKey]*conform.Result, len(all))
	for k, rs := range all {
		byRun[k] = byCheck(rs)
		for _, key := range checkKeys(rs) {
			if !slices.Contains(keys, key) {
				keys = append(keys, key)
			}
		}
	}
	out := make([]conform.Result, len(keys))
	for j, key := range keys {
		var pass, fail int
		var firstFail, base *conform.Result
		failSlip := int64(0) // the harness's slip in the run of firstFail
		for k := range all {
			r := byRun[k][key]
			if r == nil {
				continue
			}
			if base == nil {
				base = r
			}
			switch {
			case r.Verdict == conform.Pass:
				pass++
			case failing(r.Verdict):
				fail++
				// The first FAIL, else the first WARN.
				if firstFail == nil || (firstFail.Verdict != conform.Fail && r.Verdict == conform.Fail) {
					firstFail = r
					failSlip = 0
					if k < len(slips) {
						failSlip = slips[k]
					}
				}
			}
		}
		r := *base
		if firstFail != nil {
			r = *firstFail
		} else {
			// No failure: the best run speaks (PASS, else NOT-APPLICABLE: a run
			// that left the check unjudged because it was slow is no evidence
			// against the run that finished cleanly).
			for _, want := range []conform.Verdict{conform.Pass, conform.NotApplicable} {
				if r.Verdict == want {
					break
				}
				found := false
				for k := range all {
					if o := byRun[k][key]; o != nil && o.Verdict == want {
						r, found = *o, true
						break
					}
				}
				if found {
					break
				}
			}
		}
		r.Runs, r.Passed = len(all), pass
		timing := timingDependent(&r, timedOut)
		maxSlip := slices.Max(slips)
		r.SlipMS = maxSlip
		tol := FlakyTolerance(failSlip, scaleOf(opts))
		starved, why := starvedEverywhere(all, byRun, key)
		// passedRun is the result of a run that passed, with failing's counts
		// and a note of what failed in the other runs.
		passedRun := func(failing conform.Result, note string) conform.Result {
			p := failing
			for k := range all {
				if o := byRun[k][key]; o != nil && o.Verdict == conform.Pass {
					p = *o
					break
				}
			}
			p.Runs, p.Passed, p.SlipMS = failing.Runs, failing.Passed, failing.SlipMS
			p.Message = fmt.Sprintf("%s (passed in %d of %d runs; %s)", p.Message, pass, len(all), note)
			return p
		}
		switch {
		case fail > 0 && pass > 0 && timing && starved:
			// Every failing run missed by no more than the time the
			// implementation waited for a CPU there: the machine's delay, not
			// its own. The run that passed speaks, with a note.
			r = passedRun(r, fmt.Sprintf("%s in %d, not reproduced: %s; the failing run: %s", failedIn(r.Verdict), fail, why, r.Message))
		case fail > 0 && pass > 0 && timing && r.MarginMS != nil && time.Duration(*r.MarginMS-r.CPUWaitMS)*time.Millisecond > tol:
			// Far beyond what the harness's lateness (and the implementation's
			// wait for a CPU) can explain: the agent's failure, whatever another
			// run did.
			r.Message = fmt.Sprintf("%s in %d of %d runs, beyond the timing tolerance: %d ms over its limit where the harness's timers were late by up to %d ms (%s only within %s: twice that plus %s × scale); the failing run: %s",
				failedIn(r.Verdict), fail, len(all), *r.MarginMS, failSlip, notReproduced(r.Verdict), tol, FlakyFloor, r.Message)
		case fail > 0 && pass > 0 && timing && r.Verdict == conform.Warn:
			// A warning that rests on timing and did not come back: the run
			// that passed speaks, with a note of the warning (a WARN is no
			// violation; FLAKY would score it as one more WARN).
			r = passedRun(r, fmt.Sprintf("WARN in %d, not reproduced: a warning that rests on timing; the warning: %s", fail, r.Message))
		case fail > 0 && pass > 0 && timing:
			r.Verdict = conform.Flaky
			r.Message = fmt.Sprintf("FLAKY: failed in %d of %d runs, passed in %d; the failing run: %s", fail, len(all), pass, r.Message)
			r.Rerun = RerunCommand(opts, r.Check)
		case fail > 0 && pass == 0 && timing && starved:
			r.Verdict = conform.HarnessError
			r.Message = fmt.Sprintf("%s in every run, each time by no more than the implementation waited for a CPU (%s): the machine was too slow to judge this timing check; the failing run: %s", failedIn(r.Verdict), why, r.Message)
		case fail > 0 && pass == 0 && timing && time.Duration(slices.Min(slips))*time.Millisecond > slipTolerance(scaleOf(opts)):
			r.Verdict = conform.HarnessError
			r.Message = fmt.Sprintf("the harness's own timers were late by up to %d ms in every run (tolerance %s): the machine was too slow to judge this timing check; the failing run: %s", maxSlip, slipTolerance(scaleOf(opts)), r.Message)
		case fail > 0 && len(all) > 1:
			r.Message = fmt.Sprintf("%s in %d of %d runs: %s", failedIn(r.Verdict), fail, len(all), r.Message)
		}
		out[j] = r
	}
	return out
}

// starvedEverywhere reports whether every failing result of key (over the
// runs) is a timing miss no larger than the time the implementation's processes
// waited on a CPU run queue in that run (Result.CPUWaitMS, Result.MarginMS): a
// miss the machine explains. why says so in words. A failure without a
// measured margin (a deadline reached, a message missing) is never explained so:
// the deadline already grew by the wait (harness extendDeadline).
func starvedEverywhere(all [][]conform.Result, byRun []map[checkKey]*conform.Result, key checkKey) (ok bool, why string) {
	var parts []string
	for k := range all {
		r := byRun[k][key]
		if r == nil || !failing(r.Verdict) {
			continue
		}
		if r.MarginMS == nil || *r.MarginMS < 0 || r.CPUWaitMS <= 0 || *r.MarginMS > r.CPUWaitMS {
			return false, ""
		}
		parts = append(parts, fmt.Sprintf("run %d missed by %d ms while it waited %d ms for a CPU", k+1, *r.MarginMS, r.CPUWaitMS))
	}
	return len(parts) > 0, strings.Join(parts, "; ")
}

// failedIn is how a merged message says a check's failing verdict v came about
// in some runs: "failed" (FAIL), "warned" (WARN).
func failedIn(v conform.Verdict) string {
	if v == conform.Warn {
		return "warned"
	}
	return "failed"
}

// notReproduced is the verdict of a failing verdict v within the timing
// tolerance against a pass: FLAKY for a FAIL, PASS for a WARN.
func notReproduced(v conform.Verdict) conform.Verdict {
	if v == conform.Warn {
		return conform.Pass
	}
	return conform.Flaky
}

// checkKey names a result in a run: its check and which occurrence of it.
type checkKey struct {
	id string
	n  int
}

// checkKeys names each result of rs, in order.
func checkKeys(rs []conform.Result) []checkKey {
	keys := make([]checkKey, len(rs))
	seen := map[string]int{}
	for i := range rs {
		keys[i] = checkKey{rs[i].Check, seen[rs[i].Check]}
		seen[rs[i].Check]++
	}
	return keys
}

// byCheck indexes the results of one run by checkKey.
func byCheck(rs []conform.Result) map[checkKey]*conform.Result {
	m := make(map[checkKey]*conform.Result, len(rs))
	for i, key := range checkKeys(rs) {
		m[key] = &rs[i]
	}
	return m
}

// timingDependent reports whether r's verdict may rest on when things happened:
// a timing check's, or (in a run that hit the scenario deadline) any check's but
// a failure on what the agent sent (Result.Sent).
func timingDependent(r *conform.Result, timedOut bool) bool {
	if c := conform.LookupCheck(r.Check); c != nil && c.Timing {
		return true
	}
	return timedOut && !r.Sent // (Sent only marks a FAIL or a WARN)
}

// formatScale writes a timeout scale as --timeout-scale takes it.
func formatScale(scale float64) string { return strconv.FormatFloat(scale, 'g', -1, 64) }

func scaleOf(opts Options) float64 {
	if opts.Scale <= 0 {
		return 1
	}
	return opts.Scale
}

// runScenario plays one scenario (run k of its repeats) and judges its checks.
func runScenario(ctx context.Context, opts Options, sc *conform.Scenario, k int) (conform.ScenarioRun, []conform.Result) {
	run := conform.ScenarioRun{ID: sc.ID, Title: sc.Title, Protocol: sc.Protocol, Family: sc.Family, Source: sc.Source}
	selected := false
	for _, id := range selectableIDs(sc) {
		if Selected(id, opts.Run, opts.Skip) {
			selected = true
		}
	}
	if !selected {
		run.Skipped = true
		return run, judge(opts, sc, nil, nil)
	}
	start := time.Now()
	sess, err := play(ctx, opts, sc, k)
	run.Duration = time.Since(start)
	run.DurationMS = run.Duration.Milliseconds()
	if sess != nil {
		run.Spoke = !silent(sess, opts.judged())
		run.Records = sess.Records
		run.Transcript = transcriptPath(opts.OutDir, sc.ID, k)
		for _, a := range sess.Attempts {
			run.SlipMS = max(run.SlipMS, a.Slip.Milliseconds())
			run.CPUWaitMS = max(run.CPUWaitMS, a.CPUWait.Milliseconds())
			ai := conform.AttemptInfo{N: a.N, ExitCode: a.Exit.Code, Signal: a.Exit.Signal, TimedOut: a.Timeout}
			if a.Exit.Err != nil {
				ai.Error = a.Exit.Err.Error()
			}
			run.Attempts = append(run.Attempts, ai)
		}
	}
	if err != nil {
		run.HarnessError = err.Error()
		return run, judge(opts, sc, nil, err)
	}
	res := judge(opts, sc, sess, nil)
	if run.CPUWaitMS > 0 {
		for i := range res {
			if r := &res[i]; failing(r.Verdict) && timingDependent(r, run.TimedOut()) {
				r.CPUWaitMS = run.CPUWaitMS
			}
		}
	}
	return run, res
}

// transcriptPath is where run k of a scenario writes its transcript: ID.jsonl for
// the first run, ID.run2.jsonl, ... for repeats and confirmations.
func transcriptPath(out, id string, k int) string {
	if k > 1 {
		return filepath.Join(out, fmt.Sprintf("%s.run%d.jsonl", safeName(id), k))
	}
	return filepath.Join(out, safeName(id)+".jsonl")
}

func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, id)
}

// play runs the scenario's driver and lints the transcript. Its error is always
// the harness's.
func play(ctx context.Context, opts Options, sc *conform.Scenario, k int) (*conform.Session, error) {
	scratch, err := opts.scratch.scratchDir(sc.ID)
	if err != nil {
		return nil, fmt.Errorf("scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	scratch, _ = filepath.EvalSymlinks(scratch)
	path := transcriptPath(opts.OutDir, sc.ID, k)
	create := opts.createTranscript
	if create == nil {
		create = func(p string) (io.WriteCloser, error) { return CreateNew(p) }
	}
	f, err := create(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	h := harness.New(ctx, harness.Config{Scenario: sc, Transcript: f, Launcher: opts.Launcher,
		Command: opts.launchCommand, Scale: opts.Scale, Scratch: scratch})
	sess := h.Session()
	drive, _ := Driver(sc.Protocol)
	if opts.Driver != nil {
		drive = opts.Driver
	}
	if err := h.End(drive(h)); err != nil {
		return sess, err
	}
	if err := f.Close(); err != nil {
		return sess, fmt.Errorf("transcript: %w", err)
	}
	if opts.Linter != nil {
		// Lint what the harness holds, not the file: the records in memory are the
		// transcript (the file is their copy for the user and for aoplint).
		lint, err := LintRecordsIn(opts.Linter, path, scratch, sess.Records, opts.judged())
		if err != nil {
			return sess, err
		}
		sess.Lint = append(sess.Lint, lint...)
	}
	return sess, nil
}

// LintRecords lints records (a transcript/1 stream held in memory) with l, under
// the file name name, and keeps the findings on what the party under test
// (judged: the records' "from") sent: its stderr is free (logs), and info
// diagnostics are not findings.
func LintRecords(l Linter, name string, records []conform.Record, judged conform.Actor) ([]conform.LintFinding, error) {
	return LintRecordsIn(l, name, "", records, judged)
}

// LintRecordsIn is LintRecords with the directory the agent ran in (root, ""
// when unknown), given to a RootedLinter.
func LintRecordsIn(l Linter, name, root string, records []conform.Record, judged conform.Actor) ([]conform.LintFinding, error) {
	var buf bytes.Buffer
	for i := range records {
		b, err := json.Marshal(&records[i])
		if err != nil {
			return nil, fmt.Errorf("lint: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	var diags []Diag
	var err error
	if rl, ok := l.(RootedLinter); ok && root != "" {
		diags, err = rl.LintTranscriptIn(name, root, &buf)
	} else {
		diags, err = l.LintTranscript(name, &buf)
	}
	if err != nil {
		return nil, fmt.Errorf("lint: %w", err)
	}
	var out []conform.LintFinding
	for _, d := range diags {
		if d.Line < 1 || d.Line > len(records) {
			continue
		}
		r := &records[d.Line-1]
		if r.From != judged || r.Stream == "stderr" || d.Severity == "info" {
			continue
		}
		out = append(out, conform.LintFinding{Seq: r.Seq, Rule: d.Rule, Severity: d.Severity, Message: d.Message, Pointer: d.Pointer, Spec: d.Spec, Measured: d.Measured, Limit: d.Limit})
	}
	return out, nil
}

// judge computes the results of a scenario's checks.
func judge(opts Options, sc *conform.Scenario, sess *conform.Session, herr error) []conform.Result {
	var out []conform.Result
	for _, id := range withRegularFiles(sc, sess, opts.Run, checkIDs(sc, sess, opts.Run)) {
		c := conform.LookupCheck(id)
		r := conform.Result{Check: id, Scenario: sc.ID, Protocol: sc.Protocol, Family: sc.Family}
		if c != nil {
			r.Tier, r.Level, r.Spec, r.Requirement = c.Tier, c.Level, c.Spec, c.Requirement
		}
		switch {
		case !Selected(id, opts.Run, opts.Skip):
			r.Verdict = conform.Skip
			r.Message = "deselected by --run/--skip"
		case herr != nil:
			// The harness's trouble (a transcript it could not write, an agent
			// it could not launch): never counted against the agent.
			r.Verdict = conform.HarnessError
			r.Message = "not judged: the harness failed (" + herr.Error() + ")"
		case c == nil:
			r.Verdict = conform.NotTested
			r.Message = "unknown check"
		default:
			o := crashCause(notApplicable(runCheck(c, sess), sess, opts.judged()), c, sess, opts.judged())
			r.Verdict, r.Message, r.Expected, r.Actual, r.Evidence, r.DependsOn = o.Verdict, o.Message, o.Expected, o.Actual, o.Seq, o.DependsOn
			r.Sent = o.Sent && failing(o.Verdict)
			r.SetTiming(o)
			r.Lint = lintFor(c, sess, sc)
			if c.Level == conform.MUST {
				// Warnings never sit under a MUST: they are SHOULD-grade findings.
				r.Lint = errorsOnly(r.Lint)
			}
			if r.Verdict == conform.NotJudged {
				// Lint errors the root cause explains do not fail a check left
				// without evidence by it; any other does.
				r.Lint = unexplained(r.Lint, o.Explains)
			}
			if len(r.Lint) > 0 && hasError(r.Lint) && r.Verdict != conform.Fail {
				r.Verdict = conform.Fail
				r.Message = conform.LintMessage(r.Lint)
			}
		}
		if r.Verdict == conform.NotApplicable && opts.Strict && r.Level == conform.MUST {
			r.Verdict = conform.Fail
			r.Message = "--strict: every MUST must be exercised; " + r.Message
		}
		if r.Verdict == conform.Fail || r.Verdict == conform.NotTested || r.Verdict == conform.Warn || r.Verdict == conform.NotJudged {
			r.Rerun = RerunCommand(opts, id)
		}
		out = append(out, r)
	}
	return out
}

// notApplicable turns a NOT-TESTED outcome into NOT-APPLICABLE when a correct
// agent may legitimately never have reached the state the check needs: it spoke
// the protocol in this scenario and every attempt ended by itself with exit code 0
// (it finished before the scripted step, or never took an optional path). A MUST
// left unjudged by the agent's silence, crash, garbage or hang stays NOT-TESTED,
// which fails the run (docs/aopconform.md "Verdicts").
func notApplicable(o conform.Outcome, s *conform.Session, judged conform.Actor) conform.Outcome {
	if o.Verdict != conform.NotTested || s == nil || silent(s, judged) || len(s.Attempts) == 0 {
		return o
	}
	for _, a := range s.Attempts {
		if !a.EndedCleanly() {
			return o
		}
	}
	o.Verdict = conform.NotApplicable
	o.Message = "not applicable: " + o.Message
	return o
}

// crashCause turns a NOT-TESTED outcome of the agent side in a scenario whose
// agent crashed (conform.CrashRoot: its last attempt exited by itself with a
// non-zero code) into NOT-JUDGED under the check that reports the crash: the
// situation the check needs never arose because the agent was gone. One
// crash, one failure; where that check failed nowhere, ResolveDependencies
// makes this result the failure that names the crash.
func crashCause(o conform.Outcome, c *conform.Check, s *conform.Session, judged conform.Actor) conform.Outcome {
	if o.Verdict != conform.NotTested || s == nil || judged != conform.ActorAgent {
		return o
	}
	root := conform.CrashRoot(s)
	if root == "" || root == c.ID {
		return o
	}
	return conform.NotJudgedf(root, "the agent exited with code %d first: %s", s.Last().Exit.Code, o.Message)
}

// silent reports whether the party under test (from: judged) sent no protocol
// message at all.
func silent(s *conform.Session, judged conform.Actor) bool {
	for i := range s.Records {
		if r := &s.Records[i]; r.From == judged && r.Key != "" {
			return false
		}
	}
	return true
}

// runCheck runs a check, turning a panic of the check into a harness-side verdict.
func runCheck(c *conform.Check, s *conform.Session) (o conform.Outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = conform.NotTestedf("the check itself failed (harness bug): %v", p)
		}
	}()
	return c.Run(s)
}

// lintFor returns the lint findings that belong to a check. A catch-all check
// ("*", messages-valid) leaves out the findings another check of the scenario
// claims by rule prefix: one root cause, one failure.
func lintFor(c *conform.Check, s *conform.Session, sc *conform.Scenario) []conform.LintFinding {
	claimed := func(rule string) bool {
		for _, id := range sc.Checks {
			o := conform.LookupCheck(id)
			if o == nil || o == c {
				continue
			}
			for _, p := range o.Lint {
				if p != "*" && strings.HasPrefix(rule, p) {
					return true
				}
			}
		}
		return false
	}
	var out []conform.LintFinding
	for _, f := range s.Lint {
		for _, p := range c.Lint {
			if (p == "*" && !claimed(f.Rule)) || (p != "*" && strings.HasPrefix(f.Rule, p)) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// unexplained drops the findings whose rule starts with one of the prefixes.
func unexplained(fs []conform.LintFinding, prefixes []string) []conform.LintFinding {
	var out []conform.LintFinding
	for _, f := range fs {
		explained := false
		for _, p := range prefixes {
			explained = explained || strings.HasPrefix(f.Rule, p)
		}
		if !explained {
			out = append(out, f)
		}
	}
	return out
}

func errorsOnly(fs []conform.LintFinding) []conform.LintFinding {
	var out []conform.LintFinding
	for _, f := range fs {
		if f.Severity == "error" {
			out = append(out, f)
		}
	}
	return out
}

func hasError(fs []conform.LintFinding) bool {
	for _, f := range fs {
		if f.Severity == "error" {
			return true
		}
	}
	return false
}

// RerunCommand is the command line that reruns just one check.
func RerunCommand(opts Options, checkID string) string {
	args := []string{"aopconform", "run", "--protocol", opts.Protocol}
	args = append(args, opts.RerunArgs...)
	if opts.Scale != 1 && opts.Scale > 0 {
		args = append(args, "--timeout-scale", formatScale(opts.Scale))
	}
	if opts.Strict {
		args = append(args, "--strict")
	}
	if opts.Repeat > 1 {
		args = append(args, "--repeat", strconv.Itoa(opts.Repeat))
	}
	args = append(args, "--run", checkID, "--")
	args = append(args, opts.Command...)
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// silenceIsRoot makes a silent implementation's silence one failure: one
// check is its root cause (fail fills in its results, in every scenario that
// judged it) and every other judged result is NOT-JUDGED under it, so nothing
// passes and the score stays zero. The root is the check that failed on its
// own evidence (the silence broke it, rather than left it vacuous), a MUST
// before a SHOULD, a Core check before a Resilient one before a Full one, then
// the first by check ID and scenario. Results of a scenario the harness could
// not judge, and deselected ones, keep their verdicts.
func silenceIsRoot(results [][]conform.Result, runs []conform.ScenarioRun, fail func(*conform.Result), why string) {
	rank := func(r *conform.Result) [2]bool {
		return [2]bool{r.Verdict == conform.Fail || r.Verdict == conform.NotTested, r.Level == conform.MUST}
	}
	better := func(a, b *conform.Result) bool {
		ra, rb := rank(a), rank(b)
		for k := range ra {
			if ra[k] != rb[k] {
				return ra[k]
			}
		}
		if ta, tb := slices.Index(conform.Tiers, a.Tier), slices.Index(conform.Tiers, b.Tier); ta != tb {
			return ta < tb // the most basic requirement
		}
		if a.Check != b.Check {
			return a.Check < b.Check
		}
		return a.Scenario < b.Scenario
	}
	judged := func(i, j int) bool {
		return results[i][j].Verdict != conform.Skip && runs[i].HarnessError == ""
	}
	var root *conform.Result
	for i := range results {
		for j := range results[i] {
			if r := &results[i][j]; judged(i, j) && (root == nil || better(r, root)) {
				root = r
			}
		}
	}
	if root == nil {
		return
	}
	rootCheck := root.Check
	for i := range results {
		for j := range results[i] {
			r := &results[i][j]
			switch {
			case !judged(i, j):
			case r.Check == rootCheck:
				fail(r) // in every scenario that judged it
			default:
				r.Verdict, r.DependsOn = conform.NotJudged, rootCheck
				r.Message = "not judged: depends on " + rootCheck + " (" + why + ")"
				r.Expected, r.Actual, r.Rerun = "", "", ""
			}
		}
	}
}
