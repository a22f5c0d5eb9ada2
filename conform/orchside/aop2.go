package orchside

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	engaop2 "github.com/aopkit/aopkit/conform/engine/aop2"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

func init() {
	sides["aop2"] = &side{key: engaop2.Key, dispatchSummary: aop2DispatchSummary, afterLaunches: aop2EmittedDecisions}
	conform.Register(aop2Checks...)
	conform.Register(refCheck("aop2"))
}

// Tolerances of the timing checks (× --timeout-scale). Early: the orchestrator
// may start its clock when it spawns the agent or writes a message, a little
// before the agent's own record of it. Late: how long after a limit the agent may
// still run before the orchestrator is judged late.
const (
	stopEarly = 500 * time.Millisecond
	stopLate  = 1500 * time.Millisecond
)

// aop2Lint are the single-message rules of a TASK: the orchestrator's sequence
// duties are judged by the checks, not by the agent-side sequence rules.
var aop2Lint = []string{"AOP2-VERSION", "AOP2-ENVELOPE", "AOP2-EXT", "AOP2-LIMIT", "AOP2-POLICY", "AOP2-CODE", "AOP2-TIME", "AOP2-VALUE", "AOP2-STATUS", "AOP2-SCHEMA", "GEN-"}

var aop2Checks = []*conform.Check{
	{
		ID: "aop2/orch/1.2/task-dispatched", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Spec:        "aop2 §1.2, §2; bindings §orchestrators",
		Requirement: "TASK – MUST contain `session`, `target`, `task`. MUST NOT contain `task_status`. (The orchestrator dispatches the task it was given: one valid TASK line on the executor's stdin, same session_id and task_id.)",
		Lint:        aop2Lint,
		Bad:         "the orchestrator starts the executor but writes the task as YAML, or rewrites task_id, or adds task_status to the TASK",
		Good:        "the orchestrator writes the TASK it was given, compact, as one line on the executor's stdin",
		Run:         aop2TaskDispatched,
	},
	{
		ID: "aop2/orch/bind/healthy-agent-completes", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Spec:        "aop2 §5, §11; bindings §orchestrators",
		Requirement: "An executor that answers within the effective timeout is neither terminated nor re-dispatched; the orchestrator reads its RESPONSE, lets it exit and exits 0 itself.",
		Bad:         "the orchestrator closes the executor's stdin right after the TASK, or kills it at a timeout of its own, or re-dispatches a task that succeeded",
		Good:        "the orchestrator waits for the RESPONSE and the executor's exit, then exits 0",
		Run:         aop2HealthyCompletes,
	},
	{
		ID: "aop2/orch/11/timeout-enforced", Family: "timeouts", Tier: conform.Core, Level: conform.MUST, Timing: true,
		Spec:        "aop2 §11, §12",
		Requirement: "If `guard_rails.timeout_seconds` is set → it overrides `execution_policy.timeout_seconds`. `E_TIMEOUT` – task exceeded timeout. (With auto_terminate_on_timeout the executor is terminated at the effective timeout: not before it, not long after.)",
		Bad:         "the orchestrator uses execution_policy.timeout_seconds (60 s) although guard_rails says 2 s, or never terminates an executor that runs past its timeout",
		Good:        "the orchestrator sends SIGTERM to the executor's group 2 s after the dispatch (guard_rails), SIGKILL after a grace period, and records E_TIMEOUT",
		Run:         aop2TimeoutEnforced,
	},
	{
		ID: "aop2/orch/6.1/heartbeat-failure-abort", Family: "heartbeats", Tier: conform.Resilient, Level: conform.MUST, Timing: true,
		Spec:        "aop2 §6.1, §12",
		Requirement: "`E_HEARTBEAT_FAILURE` – missed `max_missed_beats`. (With `on_heartbeat_failure: ABORT` the orchestrator aborts the executor once interval_seconds × max_missed_beats pass without a HEARTBEAT.)",
		Bad:         "the orchestrator ignores the heartbeat policy and lets a silent executor run until the task timeout",
		Good:        "after interval_seconds × max_missed_beats without a HEARTBEAT the orchestrator records E_HEARTBEAT_FAILURE and terminates the executor",
		Run:         aop2HeartbeatAbort,
	},
	{
		ID: "aop2/orch/7/rollback-restored", Family: "rollback", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §7",
		Requirement: "Rollback Protocol (Orchestrator-Owned): with `rollback_snapshot.enabled` the orchestrator snapshots the expected output before dispatch and, when the task fails or is aborted, restores it and emits `ROLLBACK_INITIATED`. \"Executors are **not required** to perform rollback; this is orchestrator tooling.\"",
		Bad:         "the executor overwrites out.txt and reports FAILURE; the orchestrator records the failure and leaves the overwritten out.txt in place",
		Good:        "before dispatch the orchestrator copies out.txt to .aop_snapshots/out.txt.before; after the FAILURE it copies it back and emits ROLLBACK_INITIATED",
		Run:         aop2RollbackRestored,
	},
	{
		ID: "aop2/orch/9/fallback-by-trigger", Family: "fallbacks", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §9, §2.2",
		Requirement: "`alternative_models` with `fallback_trigger` (`TIMEOUT`, `FIRST_ERROR`, `CRITICAL_ERROR`, `ALL_ERRORS`, `COST_LIMIT_EXCEEDED`): after a failed attempt the task is re-dispatched to the first alternative whose trigger matches the failure, with that provider and model in `target`.",
		Bad:         "after an E_TIMEOUT the orchestrator re-dispatches to the first alternative although its trigger is COST_LIMIT_EXCEEDED, or re-dispatches the same model, or gives up",
		Good:        "after an E_TIMEOUT the orchestrator skips the COST_LIMIT_EXCEEDED alternative and re-dispatches the same task with target GEMINI / gemini-2.5-pro (trigger TIMEOUT)",
		Run:         aop2FallbackByTrigger,
	},
}

// aop2Given is the TASK the orchestrator was given, as the reference engine reads
// it (§11 precedence included).
func aop2Given(s *conform.Session) (*engaop2.Task, error) {
	t, _, err := engaop2.ParseTask([]byte(FactTask.Get(s)))
	if err == nil && t == nil {
		err = fmt.Errorf("no task")
	}
	return t, err
}

// aop2TaskOf decodes the first TASK a launch received (lint/spec/aop2; nil
// when none).
func aop2TaskOf(l *Launch) (*aop2spec.Task, *Event) {
	for _, e := range l.Messages("stdin", "TASK") {
		if m, err := aop2spec.DecodeTask([]byte(e.Line)); err == nil {
			return m, e
		}
	}
	return nil, nil
}

// aop2DispatchSummary names a launch's TASK by its target and attempt.
func aop2DispatchSummary(s *conform.Session, l *Launch) string {
	m, _ := aop2TaskOf(l)
	if m == nil {
		if aop2V1Launch(s, l) {
			return "v1 prompt"
		}
		return "no TASK"
	}
	attempt := ""
	if a := m.Task.Attempt; a != nil {
		attempt = fmt.Sprintf(", attempt %g", *a)
	}
	return "TASK for " + m.Target.Provider + " / " + m.Target.Model + attempt
}

// firstLaunch is the common start of the checks: the given task and launch 1.
func firstLaunch(s *conform.Session) (*engaop2.Task, *Launch, *conform.Outcome) {
	given, err := aop2Given(s)
	if err != nil {
		o := conform.NotTestedf("the scenario's task does not parse: %v", err)
		return nil, nil, &o
	}
	ls := launchesOf(s)
	if len(ls) == 0 {
		o := conform.Mismatch("the orchestrator never started the agent ($"+EnvAgent+")", "one launch of $"+EnvAgent, "none")
		return given, nil, &o
	}
	return given, &ls[0], nil
}

func aop2TaskDispatched(s *conform.Session) conform.Outcome {
	given, _, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	var seqs []int
	for _, l := range launchesOf(s) {
		m, e := aop2TaskOf(&l)
		if m == nil {
			return conform.Mismatch(fmt.Sprintf("launch %d of the agent received no TASK on stdin", l.N), "one TASK JSON line on stdin", fmt.Sprintf("%d stdin lines", len(l.Messages("stdin", "")))).At(l.Seqs("stdin")...)
		}
		seqs = append(seqs, e.Seq)
		got := [2]string{m.Session.SessionID, m.Task.TaskID}
		want := [2]string{given.SessionID, given.TaskID}
		if got != want {
			return conform.Mismatch(fmt.Sprintf("launch %d: the TASK names another session or task than the one given", l.N),
				"session_id "+want[0]+", task_id "+want[1], "session_id "+got[0]+", task_id "+got[1]).At(e.Seq)
		}
		if m.Has("task_status") {
			return conform.Failf("launch %d: the TASK carries task_status (§1.2: a TASK MUST NOT)", l.N).At(e.Seq)
		}
	}
	return conform.Passf("%d TASK(s) dispatched for session %s, task %s", len(seqs), given.SessionID, given.TaskID).At(seqs...)
}

func aop2HealthyCompletes(s *conform.Session) conform.Outcome {
	_, l, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	ls := launchesOf(s)
	if at, how, killed := l.Stop(true); how != "" || killed {
		resp := l.Messages("stdout", "RESPONSE")
		if how == "stdin-eof" && len(resp) > 0 && !at.Before(resp[0].At) {
			// Closing stdin after the RESPONSE is how an orchestrator says goodbye.
		} else {
			what := how
			if what == "" {
				what = "SIGKILL"
			}
			return conform.Mismatch("the orchestrator stopped a healthy executor before it answered", "RESPONSE, then exit 0 by itself", what+" before the RESPONSE").At(l.Seqs("signal", "stdin-eof", "stdout")...)
		}
	}
	ex := l.Exit()
	if ex == nil || ex.Code != 0 {
		return conform.NotTestedf("the agent did not exit 0 by itself (the scenario's cue failed)")
	}
	if len(ls) > 1 {
		return conform.Mismatch("the task succeeded but the orchestrator started the agent again", "1 launch", fmt.Sprintf("%d launches", len(ls))).At(ls[1].Seqs("stdin")...)
	}
	a := s.Last()
	if a == nil || a.Timeout || (a.Decided.IsZero() && (!a.Exited() || a.Exit.Code != 0)) {
		code := -1
		if a != nil {
			code = a.Exit.Code
		}
		return conform.Mismatch("the orchestrator did not exit 0 after the task completed", "exit 0, or stay up, before the scenario deadline", fmt.Sprintf("exit %d, timed out %v", code, a != nil && a.Timeout))
	}
	o := conform.Passf("the executor answered and exited 0; the orchestrator exited 0")
	if !a.Decided.IsZero() {
		o = conform.Passf("the executor answered and exited 0; the orchestrator stayed up (stopped by the harness once the task was decided)")
	}
	o.Seq = append(l.Seqs("exit"), l.Seqs("stdout")...)
	return o
}

// neverStopped says how an agent the orchestrator never stopped ended.
func neverStopped(s *conform.Session, l *Launch, origin time.Time) string {
	if ex := l.Exit(); ex != nil {
		return fmt.Sprintf("the agent ran on and exited %d by itself %s later", ex.Code, ex.At.Sub(origin).Round(time.Millisecond))
	}
	by := l.HarnessKilled
	if by == "" {
		by = "the harness"
	}
	return fmt.Sprintf("the agent was still running %s later, when it was killed by %s", l.LastSeen().Sub(origin).Round(time.Millisecond), strings.TrimPrefix(string(by), "the harness: "))
}

// stopWindow judges when the agent was stopped against a limit counted from
// origin: not before limit − early, not after limit + late (× scale).
func stopWindow(s *conform.Session, l *Launch, origin time.Time, limit time.Duration, eof bool, what string) conform.Outcome {
	scale := scaleOf(s)
	early := time.Duration(float64(stopEarly) * scale)
	late := time.Duration(float64(stopLate) * scale)
	at, how, killed := l.Stop(eof)
	seqs := l.Seqs("signal", "stdin-eof", "exit")
	if how == "" && killed {
		// SIGKILL without SIGTERM, by the orchestrator (Launch.Stop leaves out
		// the harness's clean-up): it died after its last observation.
		at, how = l.LastSeen(), "SIGKILL"
	}
	if how == "" {
		return conform.Mismatch(fmt.Sprintf("the orchestrator never stopped the agent: %s", what),
			fmt.Sprintf("SIGTERM %s after %s", limit, origin.UTC().Format(conform.TimeFormat)), neverStopped(s, l, origin)).At(seqs...)
	}
	d := at.Sub(origin)
	switch {
	case d < limit-early:
		return conform.Mismatch(fmt.Sprintf("the agent was stopped too early: %s", what), fmt.Sprintf("%s at %s (−%s)", how, limit, early), fmt.Sprintf("%s at %s", how, d.Round(time.Millisecond))).At(seqs...)
	case d > limit+late:
		return conform.Mismatch(fmt.Sprintf("the agent was stopped too late: %s", what), fmt.Sprintf("%s at %s (+%s)", how, limit, late), fmt.Sprintf("%s at %s", how, d.Round(time.Millisecond))).At(seqs...)
	}
	return conform.Passf("%s at %s (limit %s): %s", how, d.Round(time.Millisecond), limit, what).At(seqs...)
}

func aop2TimeoutEnforced(s *conform.Session) conform.Outcome {
	given, l, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	pol := given.Policy
	if pol.Timeout <= 0 || !pol.AutoTerminate {
		return conform.NotTestedf("the scenario's task has no effective timeout with auto_terminate_on_timeout")
	}
	if len(l.Messages("stdout", "RESPONSE")) > 0 {
		return conform.NotTestedf("the agent answered (the scenario's cue to exceed the timeout failed)")
	}
	return stopWindow(s, l, l.Start, pol.Timeout, true, fmt.Sprintf("effective timeout %s (from %s, §11)", pol.Timeout, pol.TimeoutFrom))
}

func aop2HeartbeatAbort(s *conform.Session) conform.Outcome {
	given, l, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	pol := given.Policy
	if !pol.Heartbeat || pol.HeartbeatInterval <= 0 || pol.MaxMissedBeats <= 0 || !strings.EqualFold(pol.OnHeartbeatFailure, "ABORT") {
		return conform.NotTestedf("the scenario's task has no heartbeat policy with on_heartbeat_failure ABORT")
	}
	if len(l.Messages("stdout", "RESPONSE")) > 0 {
		return conform.NotTestedf("the agent answered (the scenario's cue to stop heartbeating failed)")
	}
	origin := l.Start
	stop, how, _ := l.Stop(true)
	for _, e := range l.Messages("stdout", "EVENT/HEARTBEAT") {
		if how == "" || e.At.Before(stop) {
			origin = e.At
		}
	}
	limit := pol.HeartbeatInterval * time.Duration(pol.MaxMissedBeats)
	return stopWindow(s, l, origin, limit, true, fmt.Sprintf("%d missed heartbeats of %s after the last one (E_HEARTBEAT_FAILURE, ABORT)", pol.MaxMissedBeats, pol.HeartbeatInterval))
}

// timeoutTriggers are the fallback_trigger values an E_TIMEOUT matches (§9).
var timeoutTriggers = map[string]bool{"TIMEOUT": true, "FIRST_ERROR": true, "ALL_ERRORS": true}

func aop2FallbackByTrigger(s *conform.Session) conform.Outcome {
	given, l, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	if len(l.Messages("stdout", "RESPONSE")) > 0 {
		return conform.NotTestedf("the first attempt answered (the scenario's cue to exceed the timeout failed)")
	}
	var want *engaop2.Alternative
	for i, alt := range given.Policy.Alternatives {
		if timeoutTriggers[strings.ToUpper(alt.Trigger)] {
			want = &given.Policy.Alternatives[i]
			break
		}
	}
	if want == nil {
		return conform.NotTestedf("the scenario's task has no alternative model a timeout triggers")
	}
	ls := launchesOf(s)
	expected := want.Provider + " / " + want.Model
	if len(ls) < 2 {
		return conform.Mismatch("the orchestrator did not re-dispatch the task after the first attempt timed out", "a second dispatch to "+expected, fmt.Sprintf("%d launch(es)", len(ls))).At(l.Seqs("signal", "exit")...)
	}
	m, e := aop2TaskOf(&ls[1])
	if m == nil {
		return conform.Mismatch("the second launch received no TASK", "a TASK for "+expected, "none").At(ls[1].Seqs("stdin")...)
	}
	got := m.Target.Provider + " / " + m.Target.Model
	if got != expected {
		return conform.Mismatch("the re-dispatch went to the wrong model (§9: the first alternative whose fallback_trigger matches E_TIMEOUT)", expected, got).At(e.Seq)
	}
	return conform.Passf("after the timeout the task was re-dispatched to %s (trigger %s)", expected, want.Trigger).At(e.Seq)
}

func aop2RollbackRestored(s *conform.Session) conform.Outcome {
	given, l, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	ws := ""
	if m, _ := aop2TaskOf(l); m != nil {
		ws = m.Task.Environment.WorkspaceRoot
	}
	var changed []string
	for _, e := range l.Messages("stdout", "RESPONSE") {
		var r struct {
			TaskStatus struct {
				FinalSignal string `json:"final_signal"`
			} `json:"task_status"`
			ExecutionSummary struct {
				OutputArtifacts []struct {
					Path string `json:"path"`
				} `json:"output_artifacts"`
			} `json:"execution_summary"`
		}
		if json.Unmarshal([]byte(e.Line), &r) != nil || r.TaskStatus.FinalSignal == "SUCCESS" {
			continue
		}
		for _, a := range r.ExecutionSummary.OutputArtifacts {
			changed = append(changed, a.Path)
		}
	}
	if len(changed) == 0 {
		return conform.NotTestedf("the agent reported no failed task with output artifacts (the scenario's cue failed)")
	}
	n := 0
	for _, so := range aop2SeededSnapshots(s, given, ws) {
		n++
		if so.After == nil {
			return conform.Mismatch(fmt.Sprintf("%s is gone after the failed task: not restored (§7)", so.Rel), so.Before, "(no file)")
		}
		if *so.After != so.Before {
			return conform.Mismatch(fmt.Sprintf("%s after the failed task is not its snapshot: not restored (§7)", so.Rel), so.Before, *so.After)
		}
	}
	if n == 0 {
		return conform.NotTestedf("no expected output with rollback_snapshot.enabled is a setup file of the scenario")
	}
	return conform.Passf("%d output(s) restored from their snapshots after the failed task", n)
}

// seededSnapshot is an expected output with rollback_snapshot.enabled that the
// scenario seeded (its setup files): its content before the run and after it
// (nil: gone).
type seededSnapshot struct {
	Path, Rel, Before string
	After             *string
}

// aop2SeededSnapshots lists the given task's seeded snapshot outputs (ws: the
// workspace_root the paths are written under).
func aop2SeededSnapshots(s *conform.Session, given *engaop2.Task, ws string) []seededSnapshot {
	before := FactFilesBefore.Get(s)
	after := FactFiles.Get(s)
	var out []seededSnapshot
	for _, o := range given.Outputs {
		if !o.Snapshot {
			continue
		}
		rel := o.Path
		if ws != "" && strings.HasPrefix(rel, ws+"/") {
			rel = "workspace/" + strings.TrimPrefix(rel, ws+"/")
		}
		if want, seeded := before[rel]; seeded {
			out = append(out, seededSnapshot{Path: o.Path, Rel: rel, Before: want, After: after[rel]})
		}
	}
	return out
}
