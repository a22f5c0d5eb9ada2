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

// The aop2 checks of what an orchestrator does with the TASK it is given before
// and between dispatches: version acceptance and detection (§1.1, §1.3), the
// payload limits (§4) and the retries of a failed attempt (§2.2, §9).

func init() {
	conform.Register(aop2PolicyChecks...)
}

var aop2PolicyChecks = []*conform.Check{
	{
		ID: "aop2/orch/1.1/accept-2x", Family: "versioning", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §1.1, §1.3, §0",
		Requirement: "Orchestrators MUST accept any `aop_version` that starts with `\"2.\"`. Any **valid v2.0.0** message is valid under v2.0.2-C. (A TASK of another 2.x revision than the orchestrator's own is validated and dispatched as v2, and the executor's RESPONSE of another 2.x revision is taken as its answer: no v1 fallback, no re-dispatch, no E_MALFORMED_RESPONSE.)",
		Bad:         "the TASK and the RESPONSE say aop_version 2.1.0; the orchestrator, which speaks 2.0.2-C, sends the v1 prompt instead, or calls the RESPONSE malformed and re-dispatches the task",
		Good:        "the orchestrator dispatches the 2.1.0 TASK as it is, reads the 2.1.0 RESPONSE (SUCCESS) and ends the task COMPLETED",
		Requires:    []string{"aop2/§1.1/accept-2x", "aop2/§1.3/v2-validate", "aop2/§1.1/v200-valid", "aop2/§0/v200-remains-valid"},
		Run:         aop2Accept2x,
	},
	{
		ID: "aop2/orch/1.1/unknown-fields-dispatched", Family: "versioning", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §1.1, §1.3",
		Requirement: "Orchestrators MUST accept any `aop_version` that starts with `\"2.\"` and validate against the latest known schema, falling back conservatively if unknown fields appear. (A TASK with a member its schema does not know is still dispatched — as v2, the member ignored, or as the v1 prompt of §1.3 — never rejected.)",
		Bad:         "the TASK has task.acceptance_criteria, unknown to the 2.0.2 schema; the orchestrator rejects it (E_SCHEMA_VALIDATION) and dispatches nothing",
		Good:        "the orchestrator falls back to the v1 prompt (VERSION_FALLBACK), or dispatches the TASK ignoring the member; either way the executor gets the task",
		Requires:    []string{"aop2/§1.1/latest-schema"},
		Run:         aop2UnknownFieldsDispatched,
	},
	{
		ID: "aop2/orch/1.3/unversioned-not-v2", Family: "versioning", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §1.3",
		Requirement: "3. If parsed and `aop_version` missing → attempt v1 markdown detection. 4. If neither → classify as `UNSTRUCTURED`. (A JSON task without aop_version is no v2 message: it is never dispatched as a v2 TASK.)",
		Bad:         "the task file has no aop_version; the orchestrator takes it as v2 and writes it on the executor's stdin as a TASK",
		Good:        "the orchestrator classifies it UNSTRUCTURED, reports E_PARSE_FAILURE and dispatches nothing",
		Requires:    []string{"aop2/§1.3/v1-detect", "aop2/§1.3/unstructured"},
		Run:         aop2UnversionedNotV2,
	},
	{
		ID: "aop2/orch/12/parse-failure-code", Family: "versioning", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aop2 §12, §1.3, §10",
		Requirement: "`E_PARSE_FAILURE` – could not parse JSON or v1 markdown. " + noCodeChannel,
		Bad:         "the task file has no aop_version; the orchestrator's SESSION_FINAL_REPORT lists `\"errors\": [\"E_SCHEMA_VALIDATION\"]` (a v2 schema failure) or none",
		Good:        "SESSION_FINAL_REPORT with `\"errors\": [\"E_PARSE_FAILURE\"]`",
		Requires:    []string{"aop2/§12/e-parse-failure", "aop2/§1.3/unstructured"},
		Run: func(s *conform.Session) conform.Outcome {
			if !aop2Unversioned(s) {
				return conform.NotTestedf("the scenario's task has an aop_version")
			}
			return aop2CodeReported(s, "E_PARSE_FAILURE", "the task has no aop_version and is no v1 markdown (UNSTRUCTURED)")
		},
	},
	{
		ID: "aop2/orch/4/soft-limit-warned", Family: "limits", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aop2 §4, §12",
		Requirement: "SOFT → emit `E_PAYLOAD_SIZE_WARNING` (Magneto & Emma). (A TASK over a SOFT limit is dispatched all the same — a warning rejects nothing — and the warning is among the codes the orchestrator reports.) " + noCodeChannel,
		Bad:         "the TASK has 11 phases (SOFT limit 10); the orchestrator rejects it, or dispatches it and reports `\"errors\": []`",
		Good:        "the orchestrator dispatches the TASK and its SESSION_FINAL_REPORT lists `\"errors\": [\"E_PAYLOAD_SIZE_WARNING\"]`",
		Requires:    []string{"aop2/§4/soft-warning", "aop2/§12/e-payload-size-warning"},
		Run:         aop2SoftLimitWarned,
	},
	{
		ID: "aop2/orch/4/hard-limit-rejected", Family: "limits", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §4, §12",
		Requirement: "HARD → reject with `E_CONTEXT_OVERFLOW`. (A TASK over a HARD limit is never dispatched; an orchestrator that reports codes reports E_CONTEXT_OVERFLOW.)",
		Bad:         "the TASK lists 101 input files (HARD limit 100); the orchestrator dispatches it, or rejects it reporting E_SCHEMA_VALIDATION",
		Good:        "the orchestrator starts no executor and its SESSION_FINAL_REPORT (status REJECTED) lists `\"errors\": [\"E_CONTEXT_OVERFLOW\"]`",
		Requires:    []string{"aop2/§4/hard-reject", "aop2/§12/e-context-overflow"},
		Run:         aop2HardLimitRejected,
	},
	{
		ID: "aop2/orch/2.2/retried-then-fallback", Family: "retries", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aop2 §2.2, §9",
		Requirement: "`execution_policy.max_retries` and `alternative_models` with `fallback_trigger: ALL_ERRORS`: a failed attempt is retried on the same model, `task.attempt` + 1, up to max_retries times; only then does the ALL_ERRORS alternative take the task (docs/orchestrator-side.md \"Where the documents disagreed\").",
		Bad:         "max_retries is 1 and every executor crashes; the orchestrator hands the task to the ALL_ERRORS alternative right after the first crash, or retries the target three times",
		Good:        "launch 1 CODEX attempt 1 crashes; launch 2 CODEX attempt 2 crashes; launch 3 CLAUDE (ALL_ERRORS) attempt 3",
		Requires:    []string{"aop2/§2.2/max-retries", "aop2/§9/fallback-dispatch"},
		Run:         aop2RetriedThenFallback,
	},
	{
		ID: "aop2/orch/2.2/retry-backoff", Family: "retries", Tier: conform.Full, Level: conform.SHOULD, Timing: true,
		Spec:        "aop2 §2.2",
		Requirement: "`\"retry_backoff_seconds\": [30, 120, 300]`: the n-th retry of a failed attempt waits the n-th value (the last one repeats) after the attempt ended. (SHOULD: §2.2 gives the field in its example, no rule in words.)",
		Bad:         "retry_backoff_seconds is [3.5]; the orchestrator retries the crashed executor 50 ms after its exit",
		Good:        "the executor crashes; 3.5 s later the orchestrator dispatches attempt 2",
		Requires:    []string{"aop2/§2.2/retry-backoff"},
		Run:         aop2RetryBackoff,
	},
	{
		ID: "aop2/orch/12/all-models-exhausted-code", Family: "retries", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aop2 §12, §9, §10",
		Requirement: "`E_ALL_MODELS_EXHAUSTED` – all alternatives failed. " + noCodeChannel,
		Bad:         "the target and its only alternative crashed; the orchestrator's SESSION_FINAL_REPORT lists `\"errors\": [\"E_PROCESS_CRASH\"]` only",
		Good:        "SESSION_FINAL_REPORT with `\"errors\": [\"E_PROCESS_CRASH\", \"E_PROCESS_CRASH\", \"E_PROCESS_CRASH\", \"E_ALL_MODELS_EXHAUSTED\"]`",
		Requires:    []string{"aop2/§12/e-all-models-exhausted"},
		Run:         aop2AllModelsExhaustedCode,
	},
	{
		ID: "aop2/orch/12/unknown-code", Family: "rollback", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aop2 §12, §5, §10",
		Requirement: "`E_UNKNOWN` – everything else. (The executor answers in time with a valid RESPONSE, final_signal FAILURE, error_details.error_code E_UNKNOWN, and exits 0: no other §12 condition applies, so the failure is reported as E_UNKNOWN.) " + noCodeChannel,
		Bad:         "the executor reports FAILURE (error_code E_UNKNOWN) and exits 0; the orchestrator's SESSION_FINAL_REPORT lists `\"errors\": [\"E_PROCESS_CRASH\"]`, or `E_MALFORMED_RESPONSE`, or an invented `E_TASK_FAILED`",
		Good:        "SESSION_FINAL_REPORT with `\"errors\": [\"E_UNKNOWN\"]`",
		Requires:    []string{"aop2/§12/e-unknown"},
		Run:         aop2UnknownCode,
	},
	{
		ID: "aop2/orch/12/rollback-failed-code", Family: "rollback", Tier: conform.Full, Level: conform.SHOULD,
		Spec:        "aop2 §12, §7, §10",
		Requirement: "`E_ROLLBACK_FAILED` – rollback attempt failed. (The executor deleted the snapshot of an output with rollback_snapshot.enabled and reported FAILURE: the rollback cannot restore the output, and the orchestrator reports E_ROLLBACK_FAILED.) " + noCodeChannel,
		Bad:         "the snapshot is gone when the task fails; the orchestrator crashes in its rollback, or reports only `E_UNKNOWN`",
		Good:        "ROLLBACK_INITIATED with the artifact's `status: \"FAILED\"`, then SESSION_FINAL_REPORT with `\"errors\": [\"E_UNKNOWN\", \"E_ROLLBACK_FAILED\"]`",
		Requires:    []string{"aop2/§12/e-rollback-failed"},
		Run:         aop2RollbackFailedCode,
	},
}

// aop2GivenVersion is the aop_version of the task the orchestrator was given
// (ok false: the task has none, or is no JSON object).
func aop2GivenVersion(s *conform.Session) (string, bool) {
	m, err := aop2spec.DecodeHeader([]byte(FactTask.Get(s)))
	if err != nil || !m.HasString("aop_version") {
		return "", false
	}
	return m.AOPVersion, true
}

// aop2Unversioned reports whether the given task is a JSON object without
// aop_version (§1.3 step 3).
func aop2Unversioned(s *conform.Session) bool {
	m, err := aop2spec.DecodeHeader([]byte(FactTask.Get(s)))
	return err == nil && !m.Has("aop_version")
}

// aop2Dispatched lists the launches that received a v2 TASK line.
func aop2Dispatched(s *conform.Session) (ls []Launch, seqs []int) {
	for _, l := range launchesOf(s) {
		if _, e := aop2TaskOf(&l); e != nil {
			ls = append(ls, l)
			seqs = append(seqs, e.Seq)
		}
	}
	return ls, seqs
}

// aop2Reported is what the orchestrator reports in its EVENTs: whether it
// reports codes at all (a SESSION_FINAL_REPORT, or an EVENT naming §12 codes),
// the codes in order of first appearance, the EVENTs' records, and the
// SESSION_FINAL_REPORT's status ("" when none).
type aop2Reported struct {
	Any    bool
	Codes  []string
	Seqs   []int
	Status string
	Events []emittedEvent
}

func aop2ReportedOf(s *conform.Session) aop2Reported {
	var r aop2Reported
	r.Events = aop2Emitted(s)
	seen := map[string]bool{}
	for _, e := range r.Events {
		found := errorCodesIn(e.Obj)
		if e.Name == "SESSION_FINAL_REPORT" || len(found) > 0 {
			r.Any = true
			r.Seqs = append(r.Seqs, e.Seq)
		}
		if e.Name == "SESSION_FINAL_REPORT" {
			r.Status, _ = e.Obj["status"].(string)
		}
		for _, c := range found {
			if !seen[c] {
				seen[c] = true
				r.Codes = append(r.Codes, c)
			}
		}
	}
	return r
}

func (r aop2Reported) has(code string) bool {
	for _, c := range r.Codes {
		if c == code {
			return true
		}
	}
	return false
}

// got is the codes reported, as a verdict's got ("no §12 code" for none).
func (r aop2Reported) got() string {
	if len(r.Codes) == 0 {
		return "no §12 code"
	}
	return strings.Join(r.Codes, ", ")
}

// aop2CodeReported judges whether want is among the §12 codes the orchestrator
// reports in the EVENTs it emits: NOT-APPLICABLE when it reports none at all
// (noCodeChannel).
func aop2CodeReported(s *conform.Session, want, what string) conform.Outcome {
	r := aop2ReportedOf(s)
	if !r.Any {
		return conform.Outcome{Verdict: conform.NotApplicable, Message: fmt.Sprintf("the orchestrator reports no error codes in any EVENT (%s): the contract names no channel it must use", eventNames(r.Events))}
	}
	if r.has(want) {
		return conform.Passf("%s reported (%s)", want, strings.Join(r.Codes, ", ")).At(r.Seqs...)
	}
	return conform.Mismatch(fmt.Sprintf("%s, but the orchestrator's EVENTs do not report %s (§12)", what, want), want+" in the SESSION_FINAL_REPORT (or another EVENT's codes)", r.got()).At(r.Seqs...)
}

// aop2ResponseVersion is the aop_version and final_signal of the first RESPONSE
// a launch's executor wrote.
func aop2ResponseVersion(l *Launch) (version, signal string, seq int, ok bool) {
	for _, e := range l.Messages("stdout", "RESPONSE") {
		var r struct {
			AOPVersion string `json:"aop_version"`
			TaskStatus struct {
				FinalSignal string `json:"final_signal"`
			} `json:"task_status"`
		}
		if json.Unmarshal([]byte(e.Line), &r) == nil {
			return r.AOPVersion, r.TaskStatus.FinalSignal, e.Seq, true
		}
	}
	return "", "", 0, false
}

func aop2Accept2x(s *conform.Session) conform.Outcome {
	v, _ := aop2GivenVersion(s)
	if !strings.HasPrefix(v, "2.") || v == engaop2.AOPVersion {
		return conform.NotTestedf("the scenario's TASK has aop_version %q, not another 2.x revision than %s", v, engaop2.AOPVersion)
	}
	_, l, bad := firstLaunch(s)
	if bad != nil {
		o := *bad
		o.Message = fmt.Sprintf("the TASK of aop_version %s was not dispatched: %s", v, o.Message)
		return o
	}
	if m, _ := aop2TaskOf(l); m == nil {
		return conform.Mismatch(fmt.Sprintf("the TASK of aop_version %s was not dispatched as v2 (§1.1: any 2.x is accepted and validated as v2)", v), "the TASK JSON line on the executor's stdin", "no TASK line (a v1 prompt?)").At(l.Seqs("stdin")...)
	}
	rv, sig, seq, ok := aop2ResponseVersion(l)
	if !ok || sig != "SUCCESS" || rv == engaop2.AOPVersion || !strings.HasPrefix(rv, "2.") {
		return conform.NotTestedf("the executor wrote no SUCCESS RESPONSE of another 2.x revision (the scenario's cue failed)")
	}
	if ls := launchesOf(s); len(ls) > 1 {
		o := conform.Mismatch(fmt.Sprintf("the RESPONSE of aop_version %s was not taken: the orchestrator dispatched the task again", rv), "1 launch: the RESPONSE accepted", fmt.Sprintf("%d launches", len(ls)))
		o.Seq = append([]int{seq}, ls[1].Seqs("stdin")...)
		return o
	}
	r := aop2ReportedOf(s)
	for _, c := range []string{"E_MALFORMED_RESPONSE", "E_SCHEMA_VALIDATION"} {
		if r.has(c) {
			o := conform.Mismatch(fmt.Sprintf("the orchestrator reports %s for the aop_version %s TASK or RESPONSE (§1.1)", c, v), "no version error", strings.Join(r.Codes, ", "))
			o.Seq = append([]int{seq}, r.Seqs...)
			return o
		}
	}
	if r.Status != "" && r.Status != "COMPLETED" {
		o := conform.Mismatch(fmt.Sprintf("the executor answered SUCCESS in aop_version %s, but the orchestrator's final report says %s", rv, r.Status), "status COMPLETED", r.Status)
		o.Seq = append([]int{seq}, r.Seqs...)
		return o
	}
	return conform.Passf("the aop_version %s TASK was dispatched as v2 and its aop_version %s RESPONSE accepted", v, rv).At(seq)
}

func aop2UnknownFieldsDispatched(s *conform.Session) conform.Outcome {
	if _, ok := aop2GivenVersion(s); !ok {
		return conform.NotTestedf("the scenario's task has no aop_version")
	}
	for _, l := range launchesOf(s) {
		if m, e := aop2TaskOf(&l); m != nil {
			return conform.Passf("the TASK was dispatched as v2 (launch %d)", l.N).At(e.Seq)
		}
		if aop2V1Launch(s, &l) {
			return conform.Passf("the task was dispatched as a v1 prompt after the fallback (launch %d)", l.N).At(l.Seqs("stdin")...)
		}
	}
	r := aop2ReportedOf(s)
	return conform.Mismatch("a TASK with a member its schema does not know was never dispatched: rejected, not fallen back conservatively (§1.1)", "the task dispatched, as v2 or as the v1 prompt", fmt.Sprintf("%d launch(es) without the task; %s", len(launchesOf(s)), eventNames(r.Events))).At(r.Seqs...)
}

func aop2UnversionedNotV2(s *conform.Session) conform.Outcome {
	if !aop2Unversioned(s) {
		return conform.NotTestedf("the scenario's task is no JSON object without aop_version")
	}
	if ls, seqs := aop2Dispatched(s); len(ls) > 0 {
		return conform.Mismatch("a task without aop_version was dispatched as a v2 TASK (§1.3: without aop_version it is no v2 message: v1 detection, else UNSTRUCTURED)", "no TASK line on any executor's stdin", fmt.Sprintf("a TASK line on launch %d", ls[0].N)).At(seqs...)
	}
	return conform.Passf("the task without aop_version was not dispatched as v2 (%d launch(es))", len(launchesOf(s)))
}

// aop2Limits is what the given TASK breaks of §4's limits, as the reference
// engine reads the TASK.
func aop2Limits(s *conform.Session) (soft, hard []string, err error) {
	t, err := aop2Given(s)
	if err != nil {
		return nil, nil, err
	}
	soft, hard = t.Limits()
	return soft, hard, nil
}

func aop2SoftLimitWarned(s *conform.Session) conform.Outcome {
	soft, hard, err := aop2Limits(s)
	switch {
	case err != nil:
		return conform.NotTestedf("the scenario's task does not parse: %v", err)
	case len(soft) == 0 || len(hard) > 0:
		return conform.NotTestedf("the scenario's TASK is not over a SOFT limit only")
	}
	if ls, _ := aop2Dispatched(s); len(ls) == 0 {
		r := aop2ReportedOf(s)
		return conform.Mismatch("a TASK over a SOFT limit only ("+soft[0]+") was never dispatched: a SOFT limit warns, it rejects nothing (§4)", "the TASK dispatched, with E_PAYLOAD_SIZE_WARNING", fmt.Sprintf("no TASK dispatched; %s", eventNames(r.Events))).At(r.Seqs...)
	}
	return aop2CodeReported(s, "E_PAYLOAD_SIZE_WARNING", "the TASK is over a SOFT limit ("+soft[0]+")")
}

func aop2HardLimitRejected(s *conform.Session) conform.Outcome {
	_, hard, err := aop2Limits(s)
	switch {
	case err != nil:
		return conform.NotTestedf("the scenario's task does not parse: %v", err)
	case len(hard) == 0:
		return conform.NotTestedf("the scenario's TASK is not over a HARD limit")
	}
	for _, l := range launchesOf(s) {
		if len(l.Messages("stdin", "")) > 0 {
			return conform.Mismatch("a TASK over a HARD limit ("+hard[0]+") was dispatched (§4: HARD → reject with E_CONTEXT_OVERFLOW)", "no dispatch", fmt.Sprintf("launch %d read its stdin", l.N)).At(l.Seqs("stdin")...)
		}
	}
	r := aop2ReportedOf(s)
	if r.Any && !r.has("E_CONTEXT_OVERFLOW") {
		return conform.Mismatch("the TASK over a HARD limit was rejected, but the orchestrator's EVENTs do not report E_CONTEXT_OVERFLOW (§4)", "E_CONTEXT_OVERFLOW", r.got()).At(r.Seqs...)
	}
	return conform.Passf("the TASK over a HARD limit (%s) was not dispatched", hard[0]).At(r.Seqs...)
}

// aop2RetryPlan is what the retry checks need of the given task: its target,
// max_retries and backoff, the first ALL_ERRORS alternative.
type aop2RetryPlan struct {
	target  string
	retries int
	backoff []time.Duration
	alt     string
}

func aop2RetryPlanOf(s *conform.Session) (*aop2RetryPlan, []Launch, *conform.Outcome) {
	given, _, bad := firstLaunch(s)
	if bad != nil {
		return nil, nil, bad
	}
	p := &aop2RetryPlan{target: given.Provider + " / " + given.Model, retries: given.Policy.MaxRetries, backoff: given.Policy.Backoff}
	for _, a := range given.Policy.Alternatives {
		if strings.EqualFold(a.Trigger, "ALL_ERRORS") {
			p.alt = a.Provider + " / " + a.Model
			break
		}
	}
	var no conform.Outcome
	ls := launchesOf(s)
	switch {
	case p.retries < 1:
		no = conform.NotTestedf("the scenario's task has no max_retries")
	case len(ls[0].Messages("stdout", "RESPONSE")) > 0:
		no = conform.NotTestedf("the first attempt answered (the scenario's cue to crash failed)")
	default:
		return p, ls, nil
	}
	return nil, nil, &no
}

// aop2Model is the "provider / model" a launch's TASK targets ("" without one).
func aop2Model(l *Launch) string {
	m, _ := aop2TaskOf(l)
	if m == nil {
		return ""
	}
	return m.Target.Provider + " / " + m.Target.Model
}

func aop2RetriedThenFallback(s *conform.Session) conform.Outcome {
	p, ls, no := aop2RetryPlanOf(s)
	if no != nil {
		return *no
	}
	if p.alt == "" {
		return conform.NotTestedf("the scenario's task has no ALL_ERRORS alternative")
	}
	var seqs []int
	var models []string
	for i := range ls {
		models = append(models, aop2Model(&ls[i]))
		seqs = append(seqs, ls[i].Seqs("stdin")...)
	}
	want := p.retries + 1 // attempts on the target before the alternative
	n := 0
	for n < len(models) && models[n] == p.target {
		n++
	}
	fail := func(msg, exp string) conform.Outcome {
		return conform.Mismatch(msg, exp, strings.Join(models, " → ")).At(seqs...)
	}
	expected := strings.TrimSuffix(strings.Repeat(p.target+" → ", want), " → ") + " → " + p.alt
	switch {
	case n < want && n < len(models):
		return fail(fmt.Sprintf("the task left %s after %d attempt(s): max_retries %d were not used up (ALL_ERRORS takes over only then)", p.target, n, p.retries), expected)
	case n < want:
		return fail(fmt.Sprintf("the failed task was attempted %d time(s) on %s: max_retries is %d", n, p.target, p.retries), expected)
	case n > want:
		return fail(fmt.Sprintf("the task was attempted %d times on %s: more than 1 + max_retries (%d)", n, p.target, p.retries), expected)
	case n == len(models) || models[n] != p.alt:
		return fail("once max_retries were used up the task did not go to the ALL_ERRORS alternative "+p.alt, expected)
	}
	for i := 1; i <= n; i++ {
		a, _ := aop2TaskOf(&ls[i-1])
		b, _ := aop2TaskOf(&ls[i])
		if attemptOf(b) <= attemptOf(a) {
			return fail(fmt.Sprintf("launch %d's TASK has task.attempt %g, not more than launch %d's %g", i+1, attemptOf(b), i, attemptOf(a)), "task.attempt + 1 on every re-dispatch")
		}
	}
	return conform.Passf("%d attempt(s) on %s (max_retries %d), then %s (ALL_ERRORS)", n, p.target, p.retries, p.alt).At(seqs...)
}

func attemptOf(m *aop2spec.Task) float64 {
	if m == nil || m.Task.Attempt == nil {
		return 0
	}
	return *m.Task.Attempt
}

func aop2RetryBackoff(s *conform.Session) conform.Outcome {
	p, ls, no := aop2RetryPlanOf(s)
	if no != nil {
		return *no
	}
	if len(p.backoff) == 0 {
		return conform.NotTestedf("the scenario's task has no retry_backoff_seconds")
	}
	scale := scaleOf(s)
	judged := 0
	for i := 1; i < len(ls) && i <= p.retries; i++ {
		prev, next := &ls[i-1], &ls[i]
		if aop2Model(next) != aop2Model(prev) {
			break
		}
		wait := p.backoff[min(i-1, len(p.backoff)-1)]
		early := min(time.Duration(float64(stopEarly)*scale), wait/2)
		ended := prev.LastSeen()
		if ex := prev.Exit(); ex != nil {
			ended = ex.At
		}
		gap := next.Start.Sub(ended)
		if gap < wait-early {
			return conform.Mismatch(fmt.Sprintf("retry %d was dispatched %s after the failed attempt ended: retry_backoff_seconds asks %s", i, gap.Round(time.Millisecond), wait),
				fmt.Sprintf("launch %d at least %s (−%s) after launch %d's exit", i+1, wait, early, i), gap.Round(time.Millisecond).String()).
				At(append(prev.Seqs("exit"), next.Seqs("stdin")...)...)
		}
		judged++
	}
	if judged == 0 {
		return conform.NotTestedf("the orchestrator retried nothing on the same model (aop2/orch/2.2/retried-then-fallback judges it)")
	}
	return conform.Passf("%d retr(ies) waited retry_backoff_seconds", judged)
}

func aop2AllModelsExhaustedCode(s *conform.Session) conform.Outcome {
	given, _, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	if len(given.Policy.Alternatives) == 0 {
		return conform.NotTestedf("the scenario's task has no alternative models")
	}
	for _, l := range launchesOf(s) {
		if _, sig, _, ok := aop2ResponseVersion(&l); ok && (sig == "SUCCESS" || sig == "PARTIAL_SUCCESS") {
			return conform.NotTestedf("launch %d succeeded (the scenario's cue to fail every model failed)", l.N)
		}
	}
	return aop2CodeReported(s, "E_ALL_MODELS_EXHAUSTED", "every model's attempt failed")
}

func aop2UnknownCode(s *conform.Session) conform.Outcome {
	_, l, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	var r struct {
		TaskStatus struct {
			FinalSignal string `json:"final_signal"`
		} `json:"task_status"`
		ErrorDetails *struct {
			ErrorCode string `json:"error_code"`
		} `json:"error_details"`
	}
	resp := l.Messages("stdout", "RESPONSE")
	ex := l.Exit()
	_, how, killed := l.Stop(true)
	if len(resp) != 1 || json.Unmarshal([]byte(resp[0].Line), &r) != nil || r.TaskStatus.FinalSignal != "FAILURE" ||
		r.ErrorDetails == nil || r.ErrorDetails.ErrorCode != "E_UNKNOWN" || ex == nil || ex.Code != 0 || (how != "" && how != "stdin-eof") || killed {
		return conform.NotTestedf("the executor did not answer FAILURE with error_code E_UNKNOWN and exit 0 by itself (the scenario's cue failed)")
	}
	return aop2CodeReported(s, "E_UNKNOWN", "the executor reported FAILURE (E_UNKNOWN) and no other §12 condition applies")
}

func aop2RollbackFailedCode(s *conform.Session) conform.Outcome {
	given, _, bad := firstLaunch(s)
	if bad != nil {
		return *bad
	}
	after := FactFiles.Get(s)
	ws := givenTask(s).Task.Environment.WorkspaceRoot
	gone := ""
	for _, o := range given.Outputs {
		if !o.Snapshot || o.SnapshotPath == "" {
			continue
		}
		rel := o.SnapshotPath
		if ws != "" && strings.HasPrefix(rel, ws+"/") {
			rel = "workspace/" + strings.TrimPrefix(rel, ws+"/")
		}
		if c, seeded := after[rel]; seeded && c == nil {
			gone = o.SnapshotPath
		}
	}
	if gone == "" {
		return conform.NotTestedf("no rollback snapshot the scenario seeded is gone after the run (the scenario's cue failed)")
	}
	return aop2CodeReported(s, "E_ROLLBACK_FAILED", "the snapshot "+gone+" was gone when the failed task was rolled back")
}
