package orchside

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/aopkit/aopkit/conform"
	engaop2 "github.com/aopkit/aopkit/conform/engine/aop2"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// The aop2 checks of what an orchestrator emits: its own protocol messages on its
// stdout (docs/bindings.md "Orchestrators": "stdout: optional: protocol messages
// the orchestrator emits (aop2 EVENTs)"), and the v1 prompt of §1.3.

func init() {
	conform.Register(aop2EventChecks...)
}

// noCodeChannel says why the code checks are SHOULDs that judge only what the
// orchestrator chose to report.
const noCodeChannel = "The contract names no field that must carry a §12 code: §10's final session report is \"unchanged structurally from Cyclops v2.0.0\", a structure this contract does not give, and no EVENT of §6–§8 has an error field. So the check judges only an orchestrator that does report codes in an EVENT it emits (a SESSION_FINAL_REPORT, §1.2 and §10, or any EVENT naming §12 codes): there the failure must appear under its §12 name. An orchestrator that emits no code at all is NOT-APPLICABLE."

var aop2EventChecks = []*conform.Check{
	{
		ID: "aop2/orch/1.3/version-fallback-event", Family: "versioning", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §1.3, §1.2",
		Requirement: "On schema failure, emit `VERSION_FALLBACK` event and transform to v1 prompt. (The orchestrator writes an EVENT with `\"event\": \"VERSION_FALLBACK\"` on its stdout when the TASK it was given fails the v2 schema.)",
		Bad:         "the TASK lacks `session`; the orchestrator logs \"schema error\" on stderr and gives up, or falls back without a word",
		Good:        "{\"aop_version\":\"2.0.2-C\",\"message_type\":\"EVENT\",\"event\":\"VERSION_FALLBACK\",\"task_id\":\"TASK-001\",\"timestamp\":\"...\",\"from_version\":\"2.0.2-C\",\"to_version\":\"1.x\",\"error_code\":\"E_SCHEMA_VALIDATION\"} on stdout",
		Run:         aop2VersionFallbackEvent,
	},
	{
		ID: "aop2/orch/1.3/v1-prompt-dispatched", Family: "versioning", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §1.3; bindings §orchestrators (v1 fallback)",
		Requirement: "On schema failure, emit `VERSION_FALLBACK` event and transform to v1 prompt. (The task goes to the executor as a v1 markdown prompt — a `# ` heading naming the TASK, its objective — written on the executor's stdin and ended by closing it; never as the v2 TASK that failed validation.)",
		Bad:         "the orchestrator dispatches the invalid TASK JSON as it is, or dispatches nothing, or writes the prompt and keeps stdin open so that the executor never knows the prompt ended",
		Good:        "the executor's stdin reads \"# AOP TASK TASK-001\\n\\n## Objective\\n\\nWrite out.txt ...\\n...\" then EOF; it answers in markdown ending \"STATUS: SUCCESS\"",
		Run:         aop2V1PromptDispatched,
	},
	{
		ID: "aop2/orch/7/rollback-event", Family: "rollback", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aop2 §7, §1.2",
		Requirement: "Rollback event: `ROLLBACK_INITIATED` with `trigger` and `artifacts_rolled_back` [{`path`, `restored_from`, `status`}]. (After restoring a snapshot the orchestrator emits it on its stdout, naming each restored artifact. SHOULD: §7 shows the event of its rollback protocol but states no MUST.)",
		Bad:         "the orchestrator puts out.txt back from its snapshot silently, or emits ROLLBACK_INITIATED with an empty artifacts_rolled_back",
		Good:        "{\"message_type\":\"EVENT\",\"event\":\"ROLLBACK_INITIATED\",\"trigger\":\"TASK_FAILED\",\"artifacts_rolled_back\":[{\"path\":\".../workspace/out.txt\",\"restored_from\":\".../.aop_snapshots/out.txt.before\",\"status\":\"SUCCESS\"}],...}",
		Run:         aop2RollbackEvent,
	},
	{
		ID: "aop2/orch/12/timeout-code", Family: "timeouts", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aop2 §12, §10",
		Requirement: "`E_TIMEOUT` – task exceeded timeout. " + noCodeChannel,
		Bad:         "the executor was terminated at its timeout; the orchestrator's SESSION_FINAL_REPORT lists `\"errors\": []`, or E_PROCESS_CRASH for it",
		Good:        "SESSION_FINAL_REPORT with `\"errors\": [\"E_TIMEOUT\"]`",
		Run:         aop2CodeEmitted("E_TIMEOUT", "the executor exceeded its timeout"),
	},
	{
		ID: "aop2/orch/12/heartbeat-failure-code", Family: "heartbeats", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aop2 §12, §6.1, §10",
		Requirement: "`E_HEARTBEAT_FAILURE` – missed `max_missed_beats`. " + noCodeChannel,
		Bad:         "the executor was aborted for its missed heartbeats; the orchestrator's SESSION_FINAL_REPORT lists `\"errors\": [\"E_TIMEOUT\"]` or none",
		Good:        "SESSION_FINAL_REPORT with `\"errors\": [\"E_HEARTBEAT_FAILURE\"]`",
		Run:         aop2CodeEmitted("E_HEARTBEAT_FAILURE", "the executor missed max_missed_beats heartbeats"),
	},
}

// emittedEvent is one EVENT the orchestrator wrote on its stdout.
type emittedEvent struct {
	Seq  int
	Name string
	Obj  map[string]any
}

// aop2Emitted lists the EVENTs the orchestrator under test wrote on its own stdout.
func aop2Emitted(s *conform.Session) []emittedEvent {
	var out []emittedEvent
	for i := range s.Records {
		r := &s.Records[i]
		if r.From != Judged || r.Stream != "stdout" || len(r.Msg) == 0 {
			continue
		}
		m := r.Obj()
		if mt, _ := m["message_type"].(string); mt != "EVENT" {
			continue
		}
		name, _ := m["event"].(string)
		out = append(out, emittedEvent{Seq: r.Seq, Name: name, Obj: m})
	}
	return out
}

func eventNames(evs []emittedEvent) string {
	if len(evs) == 0 {
		return "no EVENT on stdout"
	}
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	return "EVENTs on stdout: " + strings.Join(names, ", ")
}

// v1Stdin is what a launch read on stdin, as text, and whether its stdin was
// closed by the orchestrator.
func v1Stdin(l *Launch) (text string, eof bool) {
	var lines []string
	for _, e := range l.Events {
		switch e.Kind {
		case "stdin":
			lines = append(lines, e.Line)
		case "stdin-eof":
			// The end of stdin as the harness stopped the orchestrator is not
			// the orchestrator's.
			eof = eof || e.By == ""
		}
	}
	return strings.Join(lines, "\n"), eof
}

// aop2SchemaFailure reports whether the given task fails the v2 validation of
// §1.3 (the scenario's cue), as the reference engine parses it.
func aop2SchemaFailure(s *conform.Session) (*engaop2.Task, bool, error) {
	t, problems, err := engaop2.ParseTask([]byte(FactTask.Get(s)))
	if err != nil || t == nil {
		if err == nil {
			err = fmt.Errorf("no task")
		}
		return nil, false, err
	}
	for _, p := range problems {
		if p.Rule != "AOP2-EXT-001" {
			return t, true, nil
		}
	}
	return t, false, nil
}

// aop2FallbackDue is the common start of the v1 checks: the given task, or the
// outcome when no fallback is due.
func aop2FallbackDue(s *conform.Session) (*engaop2.Task, *conform.Outcome) {
	given, failed, err := aop2SchemaFailure(s)
	var o conform.Outcome
	switch {
	case err != nil:
		o = conform.NotTestedf("the scenario's task does not parse: %v", err)
	case !failed:
		o = conform.NotTestedf("the scenario's task passes the v2 schema (no fallback is due)")
	default:
		return given, nil
	}
	return nil, &o
}

func aop2VersionFallbackEvent(s *conform.Session) conform.Outcome {
	if _, no := aop2FallbackDue(s); no != nil {
		return *no
	}
	evs := aop2Emitted(s)
	for _, e := range evs {
		if e.Name == "VERSION_FALLBACK" {
			return conform.Passf("VERSION_FALLBACK emitted on stdout").At(e.Seq)
		}
	}
	o := conform.Mismatch("the TASK failed the v2 schema but the orchestrator emitted no VERSION_FALLBACK event (§1.3)", "an EVENT VERSION_FALLBACK on stdout", eventNames(evs))
	for _, e := range evs {
		o.Seq = append(o.Seq, e.Seq)
	}
	return o
}

func aop2V1PromptDispatched(s *conform.Session) conform.Outcome {
	given, no := aop2FallbackDue(s)
	if no != nil {
		return *no
	}
	ls := launchesOf(s)
	if len(ls) == 0 {
		return conform.Mismatch("the orchestrator never started the agent: the v1 prompt was not dispatched", "one launch of $"+EnvAgent+" with the v1 prompt on stdin", "none")
	}
	l := &ls[0]
	text, eof := v1Stdin(l)
	seqs := l.Seqs("stdin", "stdin-eof")
	fail := func(msg, want, got string) conform.Outcome {
		return conform.Mismatch(msg, want, got).At(seqs...)
	}
	if m, _ := aop2TaskOf(l); m != nil {
		return fail("the orchestrator dispatched a v2 TASK although the TASK failed the v2 schema (§1.3: transform to v1 prompt)", "a v1 markdown prompt", "a TASK JSON line")
	}
	if !aop2spec.LooksLikeV1Prompt(text) {
		return fail("what the executor read is no v1 markdown prompt (a \"# \" heading naming the TASK)", "# AOP TASK "+given.TaskID+" ...", conform.Clip(text, 200))
	}
	obj := givenTask(s).Task.Objective
	if obj != "" && !strings.Contains(text, strings.TrimSpace(obj)) {
		return fail("the v1 prompt does not carry the task's objective", obj, conform.Clip(text, 200))
	}
	if !eof {
		return fail("the orchestrator never closed the executor's stdin: a v1 prompt ends at EOF (bindings, v1 fallback)", "the prompt, then EOF", "stdin left open")
	}
	if len(ls) > 1 {
		return fail("the orchestrator started the agent again after the v1 attempt", "1 launch", fmt.Sprintf("%d launches", len(ls)))
	}
	return conform.Passf("the v1 prompt (%d lines) was dispatched and ended by EOF", strings.Count(text, "\n")+1).At(seqs...)
}

// givenTask is the task the orchestrator was given, decoded (lint/spec/aop2;
// the zero TASK when it is no JSON object).
func givenTask(s *conform.Session) *aop2spec.Task {
	if m, err := aop2spec.DecodeTask([]byte(FactTask.Get(s))); err == nil {
		return m
	}
	return &aop2spec.Task{}
}

func aop2RollbackEvent(s *conform.Session) conform.Outcome {
	given, _, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	ws := givenTask(s).Task.Environment.WorkspaceRoot
	// The artifacts the orchestrator restored: snapshot-enabled outputs seeded by
	// the scenario that hold their seeded content again after a failed task.
	var restored []string
	for _, so := range aop2SeededSnapshots(s, given, ws) {
		if so.After != nil && *so.After == so.Before {
			restored = append(restored, so.Path)
		}
	}
	if len(restored) == 0 {
		return conform.NotTestedf("no snapshot was restored (see aop2/orch/7/rollback-restored): no rollback event is due")
	}
	evs := aop2Emitted(s)
	for _, e := range evs {
		if e.Name != "ROLLBACK_INITIATED" {
			continue
		}
		listed := map[string]bool{}
		arts, _ := e.Obj["artifacts_rolled_back"].([]any)
		for _, a := range arts {
			am, _ := a.(map[string]any)
			p, _ := am["path"].(string)
			if st, _ := am["status"].(string); p != "" && st == "SUCCESS" {
				if !filepath.IsAbs(p) && ws != "" {
					p = filepath.Join(ws, p)
				}
				listed[filepath.Clean(p)] = true
			}
		}
		var missing []string
		for _, p := range restored {
			if !listed[filepath.Clean(p)] {
				missing = append(missing, p)
			}
		}
		if len(missing) == 0 {
			return conform.Passf("ROLLBACK_INITIATED names the %d restored artifact(s)", len(restored)).At(e.Seq)
		}
		sort.Strings(missing)
		return conform.Mismatch("ROLLBACK_INITIATED does not list every restored artifact with status SUCCESS in artifacts_rolled_back (§7)", strings.Join(restored, ", "), fmt.Sprintf("%d entries; missing %s", len(arts), strings.Join(missing, ", "))).At(e.Seq)
	}
	o := conform.Mismatch("the orchestrator restored the snapshot but emitted no ROLLBACK_INITIATED event (§7)", "an EVENT ROLLBACK_INITIATED on stdout naming "+strings.Join(restored, ", "), eventNames(evs))
	for _, e := range evs {
		o.Seq = append(o.Seq, e.Seq)
	}
	return o
}

// aop2CodeEmitted is the Run of a check that the §12 code of what the scenario
// made happen (want) is among the codes the orchestrator reports in the EVENTs
// it emits, once the orchestrator has acted on it (stopped the agent).
func aop2CodeEmitted(want, what string) func(*conform.Session) conform.Outcome {
	return func(s *conform.Session) conform.Outcome {
		_, l, bad := firstLaunch(s)
		if bad != nil {
			return *bad
		}
		if _, how, killed := l.Stop(true); how == "" && !killed {
			return conform.NotTestedf("the orchestrator never stopped the agent: %s was not acted on (the stop checks report it)", want)
		}
		return aop2CodeReported(s, want, what)
	}
}

// errorCodesIn lists the §12 codes among the string values of v, in order.
func errorCodesIn(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			if engaop2.IsErrorCode(t) {
				out = append(out, t)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(t[k])
			}
		}
	}
	walk(v)
	return out
}

// aop2EmittedDecisions are the decision lines of the EVENTs the orchestrator
// emitted, in order: "orchestrator emits EVENT/NAME", with the §12 codes it
// reports there (sorted, once each).
func aop2EmittedDecisions(s *conform.Session) []string {
	var out []string
	for _, e := range aop2Emitted(s) {
		line := "orchestrator emits EVENT/" + e.Name
		codes := errorCodesIn(e.Obj)
		sort.Strings(codes)
		codes = slices.Compact(codes)
		if len(codes) > 0 {
			line += " (" + strings.Join(codes, ", ") + ")"
		}
		out = append(out, line)
	}
	return out
}

// aop2V1Launch reports whether an aop2 launch was dispatched a v1 markdown prompt
// (no TASK line; its stdin text is a v1 prompt).
func aop2V1Launch(s *conform.Session, l *Launch) bool {
	if s.Scenario == nil || s.Scenario.Protocol != "aop2" {
		return false
	}
	if m, _ := aop2TaskOf(l); m != nil {
		return false
	}
	text, _ := v1Stdin(l)
	return aop2spec.LooksLikeV1Prompt(text)
}
