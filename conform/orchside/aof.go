package orchside

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/harness"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

func init() {
	sides["aof"] = &side{key: engaof.Key, readBack: aofReadBack, launchPrelude: aofPrelude,
		dispatchSummary: aofDispatchSummary, afterLaunches: aofEndDecisions, undecided: aofUndecided, freeStdout: true}
	conform.Register(aofChecks...)
	conform.Register(refCheck("aof"))
}

// aofUndecided: a task still in tasks/in-progress/ with a heartbeat is not
// decided (a crashed agent's task waits for its heartbeat to expire): a scheduler
// that stays up is not stopped then. A task without run_heartbeat.json waits for
// nothing (aof-1 §Resume Protocol Error Cases: no stale evaluation).
func aofUndecided(h *harness.H) bool {
	g, ok := aofGivenOf(h.Expand(h.Scenario().Task))
	if !ok {
		return false
	}
	dir, inside := h.Inside(g.DataDir)
	if !inside {
		return false
	}
	names, _ := filepath.Glob(filepath.Join(dir, "tasks", "in-progress", "*.md"))
	for _, n := range names {
		id := strings.TrimSuffix(filepath.Base(n), ".md")
		for _, runs := range aofRunRoots {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(runs), id, "run_heartbeat.json")); err == nil {
				return true
			}
		}
	}
	return false
}

var aofChecks = []*conform.Check{
	{
		ID: "aof/orch/lease/dispatched", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Spec:        "aof-1 §Overview (Key integration points), §Run Artifacts 1 (run.json); bindings §orchestrators aof",
		Requirement: "Dispatch → acquires lease, writes `run.json`, starts heartbeat. \"ready → in-progress: acquireLease, write run.json\". (Each agent launch runs on a task leased to its assignee: AOF_TASK_ID, AOF_AGENT_ID, AOF_DATA_DIR, AOF_TASK_FILE in tasks/in-progress/, AOF_RUN_DIR; runs/<taskId>/run.json names the task and the agent.)",
		Bad:         "the scheduler starts the agent on a task still in tasks/ready/, or with AOF_AGENT_ID other than the task's assignee, or writes no runs/<taskId>/run.json",
		Good:        `tasks/ready/TASK-2026-11-22-001.md moves to tasks/in-progress/; runs/TASK-2026-11-22-001/run.json {"taskId":"TASK-2026-11-22-001","agentId":"swe-backend","startedAt":"...","status":"running",...}; the agent runs with AOF_AGENT_ID=swe-backend`,
		Run:         aofLeaseDispatched,
	},
	{
		ID: "aof/orch/completion/transition", Family: "happy-path", Tier: conform.Core, Level: conform.MUST,
		Requires:    []string{"aof/§completion-outcomes/blocked", "aof/§completion-outcomes/needs-review"},
		Spec:        "aof-1 §Completion Protocol (Completion Outcomes, Transition Logic, Lifecycle), §run_result.json Schema",
		Requirement: "`done` → `in-progress → review` (if `reviewRequired=true`, default); `in-progress → review → done` (if `reviewRequired=false`). \"When a `completion.report` message is received, the router writes `run_result.json`\"; on session_end the completion transitions are applied.",
		Bad:         "the agent reports done and exits 0; the scheduler moves the task straight to done although review is required, or leaves it in progress, or writes no run_result.json",
		Good:        `runs/<id>/run_result.json {"taskId":...,"agentId":"swe-backend","outcome":"done",...}; tasks/in-progress/<id>.md moves to tasks/review/ (to tasks/done/ through review when reviewRequired is false)`,
		Run:         aofCompletionTransition,
	},
	{
		ID: "aof/orch/resume/reclaim-after-expiry", Family: "stale-recovery", Tier: conform.Resilient, Level: conform.MUST, Timing: true,
		Spec:        "aof-1 §Stale Heartbeat Flow, §Outcome-Driven Recovery vs. Blind Requeue",
		Requirement: "Check if heartbeat.expiresAt <= now. If stale: ... If no run_result: → Reclaim to ready (mark run artifact expired). Agent crashed mid-work, no completion signal | Missing | Blind requeue: Task → `ready`. (Not before expiresAt: a live run is never reclaimed; the reclaimed run's agent is stopped; run.json says status expired and when, expiredAt.)",
		Bad:         "the scheduler reclaims the task a quarter of a TTL after the agent's last heartbeat, or never, or leaves the hung agent running",
		Good:        "once run_heartbeat.json's expiresAt has passed (no run_result.json) the task moves to tasks/ready/, run.json says status expired and the agent gets SIGTERM",
		Run:         aofReclaimAfterExpiry,
	},
	{
		ID: "aof/orch/resume/outcome-driven", Family: "stale-recovery", Tier: conform.Resilient, Level: conform.MUST,
		Requires:    []string{"aof/§outcome-driven-recovery-vs.-blind-requeue/done", "aof/§outcome-driven-recovery-vs.-blind-requeue/blocked"},
		Spec:        "aof-1 §Outcome-Driven Recovery vs. Blind Requeue, §Stale Heartbeat Flow",
		Requirement: "Agent reported `partial` before crash | `outcome: \"partial\"` | Task → `review` (partial work preserved). \"If run_result exists: → Apply outcome-driven transitions\".",
		Bad:         "the agent reports partial and crashes; when its heartbeat expires the scheduler requeues the task to ready, losing the partial result",
		Good:        "run_result.json says partial; the stale task moves to tasks/review/ (reason stale_heartbeat_partial)",
		Run:         aofOutcomeDriven,
	},
	{
		ID: "aof/orch/handoff/child-dispatched", Family: "delegation", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Handoff Protocol (Delegation Flow, Handoff Artifacts, Delegation Depth Guard)",
		Requirement: "Router writes handoff artifacts: `<childTaskDir>/inputs/handoff.json`, `<childTaskDir>/inputs/handoff.md`. Parent depth 0 → child depth 1 (allowed); the router maintains `metadata.delegationDepth`. (The child task is then dispatched to its agent.)",
		Bad:         "the scheduler logs the handoff.request but writes no inputs/handoff.json for the child, or never dispatches the child task",
		Good:        "tasks/ready/<child>/inputs/handoff.json holds the request's payload, the child's metadata says delegationDepth 1, and the child is leased and run with AOF_AGENT_ID = its toAgent",
		Run:         aofChildDispatched,
	},
	{
		ID: "aof/orch/handoff/nested-rejected", Family: "delegation", Tier: conform.Full, Level: conform.MUST,
		Spec:        "aof-1 §Delegation Depth Guard, §Handoff Error Cases, §Conflict Resolution",
		Requirement: "Parent depth 1 → child depth 2 (rejected). Nested delegation (depth > 1) | Log `delegation.rejected` with reason `nested_delegation`.",
		Bad:         "a delegated child (delegationDepth 1) sends handoff.request; the scheduler writes the grandchild's handoff.json and dispatches it",
		Good:        `events/*.jsonl: {"type":"delegation.rejected","taskId":"<grandchild>","payload":{"reason":"nested_delegation"}}; no inputs/handoff.json, the grandchild stays in tasks/ready/ and is never run`,
		Run:         aofNestedRejected,
	},
	{
		ID: "aof/orch/envelope/invalid-rejected", Family: "errors", Tier: conform.Resilient, Level: conform.MUST,
		Spec:        "aof-1 §Validation, §Error Handling (Validation Errors), §Completion Protocol Error Cases",
		Requirement: "Invalid JSON → logged as `protocol.message.rejected` with reason `invalid_json`. Invalid envelope → logged as `protocol.message.rejected` with reason `invalid_envelope`. Invalid outcome | Zod validation fails; message rejected. (A rejected completion.report writes no run_result.json and moves no task; \"Protocol validation errors are non-fatal\".)",
		Bad:         "the agent's completion.report has an empty payload; the scheduler writes run_result.json from it or moves the task to review",
		Good:        `events/*.jsonl: {"type":"protocol.message.rejected","taskId":"<id>","payload":{"reason":"invalid_envelope"}}; no run_result.json; the task stays in progress until its heartbeat expires, then is reclaimed`,
		Run:         aofInvalidRejected,
	},
}

// aofDispatchSummary names the task and agent a launch ran on.
func aofDispatchSummary(_ *conform.Session, l *Launch) string {
	id, agent := l.Env["AOF_TASK_ID"], l.Env["AOF_AGENT_ID"]
	if id == "" {
		return "no AOF_TASK_ID"
	}
	return id + " as " + agent
}

// aofEndDecisions are each task's final status with its run's state.
func aofEndDecisions(s *conform.Session) []string {
	st := aofStateOf(s)
	if st == nil {
		return nil
	}
	var out []string
	for _, id := range slices.Sorted(maps.Keys(st.Tasks)) {
		t := st.Tasks[id]
		line := "task " + id + " ends " + t.Status()
		if t.Status() == "" {
			line = "task " + id + " has no task file"
		}
		if t.Handoff != nil {
			line += ", with inputs/handoff.json"
		}
		if t.Result != nil {
			line += ", run_result " + jsonField(t.Result, "outcome")
		}
		if t.Run != nil && jsonField(t.Run, "status") == "expired" {
			line += ", run expired"
		}
		out = append(out, line)
	}
	return out
}

// aofMsg is one envelope a launch's agent printed.
type aofMsg struct {
	e   *Event
	env *spec.Envelope
	typ string
}

// aofOut decodes the envelopes the agent of a launch printed (bare or AOF/1).
func aofOut(l *Launch) []aofMsg {
	var out []aofMsg
	for i := range l.Events {
		e := &l.Events[i]
		if e.Kind != "stdout" {
			continue
		}
		line := e.Line
		r := conform.Record{Text: &line}
		if harness.IsJSONObject([]byte(line)) {
			r = conform.Record{Msg: json.RawMessage(line)}
		}
		if env := engaof.EnvelopeOf(&r); env != nil {
			out = append(out, aofMsg{e, env, env.Type.V})
		}
	}
	return out
}

func (m aofMsg) taskID() string { return m.env.TaskID.V }

// outcome is a completion.report's outcome ("" for another message).
func (m aofMsg) outcome() string {
	if p := m.env.Completion; p != nil {
		return p.Outcome.V
	}
	return ""
}

// handoff is a handoff.request's payload (no member set for another message,
// or a payload that is no object).
func (m aofMsg) handoff() *spec.HandoffRequest {
	if p := m.env.Handoff; p != nil {
		return p
	}
	return &spec.HandoffRequest{}
}

// status is a status.update's payload (no member set for another message).
func (m aofMsg) status() *spec.StatusUpdate {
	if p := m.env.Status; p != nil {
		return p
	}
	return &spec.StatusUpdate{}
}

// ackReason is a handoff.accepted or handoff.rejected's reason ("" for another
// message).
func (m aofMsg) ackReason() string {
	if p := m.env.Ack; p != nil {
		return p.Reason.V
	}
	return ""
}

// aofCommon is the start of every aof check: the given task, the data directory
// as left, the seeded task file, the launches on the given task.
type aofCommon struct {
	given  aofGiven
	state  *AOFState
	seeded *engaof.Task
	ls     []Launch
}

func aofStart(s *conform.Session) (*aofCommon, *conform.Outcome) {
	g, ok := aofGivenOf([]byte(FactTask.Get(s)))
	if !ok {
		o := conform.NotTestedf("the scenario's task names no dataDir and taskId")
		return nil, &o
	}
	st := aofStateOf(s)
	if st == nil {
		o := conform.NotTestedf("the data directory was not read back")
		return nil, &o
	}
	c := &aofCommon{given: g, state: st, ls: launchesOf(s)}
	before := FactFilesBefore.Get(s)
	for rel, content := range before {
		if strings.HasSuffix(rel, "tasks/ready/"+g.TaskID+".md") {
			c.seeded, _ = engaof.ParseTask([]byte(content))
		}
	}
	if c.seeded == nil {
		o := conform.NotTestedf("the scenario seeds no tasks/ready/%s.md", g.TaskID)
		return nil, &o
	}
	if len(c.ls) == 0 {
		o := conform.Mismatch("the scheduler never started the agent ($"+EnvAgent+")", "a launch of $"+EnvAgent+" on "+g.TaskID, "none")
		return nil, &o
	}
	return c, nil
}

// launchesOn are the launches whose AOF_TASK_ID is id.
func (c *aofCommon) launchesOn(id string) []*Launch {
	var out []*Launch
	for i := range c.ls {
		if c.ls[i].Env["AOF_TASK_ID"] == id {
			out = append(out, &c.ls[i])
		}
	}
	return out
}

// first is the first launch on the given task, or a failure.
func (c *aofCommon) first() (*Launch, *conform.Outcome) {
	ls := c.launchesOn(c.given.TaskID)
	if len(ls) == 0 {
		o := conform.Mismatch("no agent launch ran on the given task", "AOF_TASK_ID="+c.given.TaskID, "AOF_TASK_ID="+c.ls[0].Env["AOF_TASK_ID"])
		o.Seq = c.ls[0].Seqs("stdout")
		return nil, &o
	}
	return ls[0], nil
}

// aofFirst is aofStart and the first launch on the given task.
func aofFirst(s *conform.Session) (*aofCommon, *Launch, *conform.Outcome) {
	c, bad := aofStart(s)
	if bad != nil {
		return nil, nil, bad
	}
	l, bad := c.first()
	return c, l, bad
}

// childRequest is the launch's first valid handoff.request for a child of the
// given task (nil when none).
func (c *aofCommon) childRequest(l *Launch) *aofMsg {
	for _, m := range handoffRequests(l) {
		if engaof.EnvelopeProblem([]byte(m.e.Line)) == "" && m.taskID() == m.handoff().TaskID.V && m.handoff().ParentTaskID.V == c.given.TaskID {
			return &m
		}
	}
	return nil
}

func (c *aofCommon) task(id string) *AOFTask {
	if t := c.state.Tasks[id]; t != nil {
		return t
	}
	return &AOFTask{ID: id}
}

func sameDir(a, b string) bool {
	return a != "" && filepath.Clean(a) == filepath.Clean(b)
}

func aofLeaseDispatched(s *conform.Session) conform.Outcome {
	c, bad := aofStart(s)
	if bad != nil {
		return *bad
	}
	if _, bad := c.first(); bad != nil {
		return *bad
	}
	data := c.given.DataDir
	n := 0
	for i := range c.ls {
		l := &c.ls[i]
		id, agent := l.Env["AOF_TASK_ID"], l.Env["AOF_AGENT_ID"]
		fail := func(msg, want, got string) conform.Outcome {
			return conform.Mismatch(fmt.Sprintf("launch %d (%s): %s", l.N, id, msg), want, got).At(l.Seqs("stdout", "exit")...)
		}
		if id == "" || agent == "" {
			return fail("the agent was started without the aof binding's environment", "AOF_TASK_ID and AOF_AGENT_ID set", fmt.Sprintf("AOF_TASK_ID=%q AOF_AGENT_ID=%q", id, agent))
		}
		if !sameDir(l.Env["AOF_DATA_DIR"], data) {
			return fail("AOF_DATA_DIR is not the data directory", data, l.Env["AOF_DATA_DIR"])
		}
		if want := filepath.Join(data, "tasks", spec.InProgress, id+".md"); !sameDir(l.Env["AOF_TASK_FILE"], want) {
			return fail("AOF_TASK_FILE is not the leased task's file", want, l.Env["AOF_TASK_FILE"])
		}
		if want := c.task(id).runDirIn(data); !sameDir(l.Env["AOF_RUN_DIR"], want) {
			return fail("AOF_RUN_DIR is not the task's run directory", want+"/", l.Env["AOF_RUN_DIR"])
		}
		t := c.task(id)
		assignee := ""
		if id == c.given.TaskID {
			assignee = c.seeded.Assignee
		} else if t.Task != nil {
			assignee = t.Task.Assignee
		}
		if assignee != "" && agent != assignee {
			return fail("the task is leased to another agent than its assignee", "AOF_AGENT_ID="+assignee, "AOF_AGENT_ID="+agent)
		}
		if t.Run == nil {
			return fail("no run.json: the lease wrote no run artifact", "runs/"+id+"/run.json", "(no file)")
		}
		var run struct {
			TaskID    string `json:"taskId"`
			AgentID   string `json:"agentId"`
			StartedAt string `json:"startedAt"`
			Status    string `json:"status"`
		}
		if err := json.Unmarshal(t.Run, &run); err != nil {
			return fail("run.json is not a JSON object", "run.json per aof-1 §Artifacts 1", err.Error())
		}
		if run.TaskID != id || run.AgentID != agent || run.Status == "" {
			return fail("run.json does not describe this run", fmt.Sprintf("taskId %s, agentId %s, a status", id, agent), fmt.Sprintf("taskId %q, agentId %q, status %q", run.TaskID, run.AgentID, run.Status))
		}
		if _, ok := aofTime(run.StartedAt); !ok {
			return fail("run.json's startedAt is not an ISO 8601 time", "an ISO 8601 startedAt", run.StartedAt)
		}
		n++
	}
	return conform.Passf("%d launch(es), each on a task leased to its assignee with its run.json", n)
}

// expectedStatus is where the completion transitions leave a task of the seeded
// kind for an outcome (aof-1 §Transition Logic: the engine's
// ResolveCompletionTransitions), with the path for the report.
func expectedStatus(seeded *engaof.Task, outcome string) (string, string) {
	t := *seeded
	t.Status = spec.InProgress
	tos := engaof.ResolveCompletionTransitions(&t, outcome)
	if len(tos) == 0 {
		return spec.InProgress, spec.InProgress
	}
	return tos[len(tos)-1], spec.InProgress + " → " + strings.Join(tos, " → ")
}

// completionOf is the agent's completion.report on a launch that the router must
// route (nil when none).
func completionOf(l *Launch) *aofMsg {
	for _, m := range aofOut(l) {
		if m.typ == spec.TypeCompletion && engaof.EnvelopeProblem([]byte(m.e.Line)) == "" {
			return &m
		}
	}
	return nil
}

// applied judges the given task after the agent's routed report m (what):
// run_result.json must record it; want and path are where the outcome's
// transitions put the task, got is where it is.
func (c *aofCommon) applied(m *aofMsg, what string) (want, path, got string, bad *conform.Outcome) {
	t := c.task(c.given.TaskID)
	if w, g := resultMatches(t, m); w != "" {
		o := conform.Mismatch("run_result.json does not record "+what, w, g)
		o.Seq = []int{m.e.Seq}
		return "", "", "", &o
	}
	want, path = expectedStatus(c.seeded, m.outcome())
	return want, path, t.Status(), nil
}

// resultMatches says what is wrong with run_result.json for a routed report ("" if
// nothing).
func resultMatches(t *AOFTask, m *aofMsg) (want, got string) {
	want = fmt.Sprintf("runs/%s/run_result.json with taskId %s, agentId %s, outcome %s", t.ID, t.ID, m.env.FromAgent.V, m.outcome())
	if t.Result == nil {
		return want, "(no file)"
	}
	var rr struct{ TaskID, AgentID, Outcome string }
	if json.Unmarshal(t.Result, &rr) != nil {
		return want, "not a JSON object"
	}
	if from := m.env.FromAgent.V; rr.TaskID != t.ID || rr.AgentID != from || rr.Outcome != m.outcome() {
		return want, fmt.Sprintf("taskId %s, agentId %s, outcome %s", rr.TaskID, rr.AgentID, rr.Outcome)
	}
	return "", ""
}

func aofCompletionTransition(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	m := completionOf(l)
	ex := l.Exit()
	if m == nil || ex == nil || ex.Code != 0 {
		if _, how, killed := l.Stop(false); how != "" || killed {
			return conform.Mismatch("the scheduler stopped a healthy agent before its completion", "completion.report, then exit 0 by itself", how+" before the completion").At(l.Seqs("signal", "stdout")...)
		}
		return conform.NotTestedf("the agent sent no valid completion.report and exit 0 (the scenario's cue failed)")
	}
	outcome := m.outcome()
	want, path, got, bad := c.applied(m, "the completion.report")
	if bad != nil {
		return *bad
	}
	if got != want {
		return conform.Mismatch(fmt.Sprintf("outcome %s (reviewRequired %v) left the task in the wrong status (Transition Logic)", outcome, c.seeded.ReviewRequired()), path, "tasks/"+got+"/").At(m.e.Seq)
	}
	if a := s.Last(); a == nil || a.Timeout || (a.Decided.IsZero() && (!a.Exited() || a.Exit.Code != 0)) {
		return conform.Mismatch("the scheduler did not exit 0 once the task was decided", "exit 0, or stay up, before the scenario deadline", fmt.Sprintf("timed out %v", a != nil && a.Timeout))
	}
	return conform.Passf("outcome %s: run_result.json written, %s", outcome, path).At(m.e.Seq)
}

func aofReclaimAfterExpiry(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	if completionOf(l) != nil || l.Exit() != nil && !l.Exit().At.After(l.Start) {
		return conform.NotTestedf("the agent completed or ended at once (the scenario's cue to hang failed)")
	}
	t := c.task(c.given.TaskID)
	if t.Result != nil {
		return conform.NotTestedf("run_result.json exists: not a blind reclaim")
	}
	if o, na := ttlOutlived(s, c.given, t); na {
		return o
	}
	if got := t.Status(); got != spec.Ready {
		return conform.Mismatch("the stale task was not reclaimed to ready", "tasks/"+spec.Ready+"/ (no run_result.json: reclaim)", "tasks/"+got+"/").At(l.Seqs("stdout")...)
	}
	if st := jsonField(t.Run, "status"); st != "expired" {
		return conform.Mismatch("the reclaimed run is not marked expired (markRunArtifactExpired)", `run.json "status": "expired"`, fmt.Sprintf("status %q", st))
	}
	last, exp, ok := t.heartbeatTimes()
	if !ok || !exp.After(last) {
		return conform.Mismatch("run_heartbeat.json does not say when the run expired", "lastHeartbeat < expiresAt, ISO 8601", string(t.Heartbeat))
	}
	if ex := l.Exit(); ex != nil && ex.Code != 0 {
		if _, how, _ := l.Stop(false); how == "" {
			// The agent crashed: nothing left to stop; the reclaim's own time is
			// run.json's expiredAt.
			return expiredInWindow(s, t, exp)
		}
	}
	return stopWindow(s, l, last, exp.Sub(last), false, fmt.Sprintf("the heartbeat's expiresAt %s (TTL %s after its last beat): the reclaim stops the agent", spec.FormatTime(exp), exp.Sub(last)))
}

// expiredInWindow judges the reclaim of a dead agent's task by run.json's
// expiredAt: not before the heartbeat's expiresAt (− stopEarly), not after it +
// stopLate (× scale).
func expiredInWindow(s *conform.Session, t *AOFTask, exp time.Time) conform.Outcome {
	scale := scaleOf(s)
	early := time.Duration(float64(stopEarly) * scale)
	late := time.Duration(float64(stopLate) * scale)
	at, ok := aofTime(jsonField(t.Run, "expiredAt"))
	if !ok {
		return conform.Mismatch("the crashed run's reclaim has no time: run.json has no ISO 8601 expiredAt", `run.json "expiredAt": the reclaim's time`, strings.TrimSpace(string(t.Run)))
	}
	d := at.Sub(exp)
	switch {
	case d < -early:
		return conform.Mismatch("the crashed run was reclaimed before its heartbeat expired", fmt.Sprintf("expiredAt ≥ expiresAt %s (−%s)", spec.FormatTime(exp), early), fmt.Sprintf("expiredAt %s, %s early", spec.FormatTime(at), (-d).Round(time.Millisecond)))
	case d > late:
		return conform.Mismatch("the crashed run was reclaimed late", fmt.Sprintf("expiredAt ≤ expiresAt %s (+%s)", spec.FormatTime(exp), late), fmt.Sprintf("expiredAt %s, %s late", spec.FormatTime(at), d.Round(time.Millisecond)))
	}
	return conform.Passf("the crashed run's task was reclaimed to ready %s after its heartbeat expired (run.json expiredAt)", d.Round(time.Millisecond))
}

func aofOutcomeDriven(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	m := completionOf(l)
	ex := l.Exit()
	if m == nil || ex == nil || ex.Code == 0 {
		return conform.NotTestedf("the agent did not report and then crash (the scenario's cue failed)")
	}
	if o, na := ttlOutlived(s, c.given, c.task(c.given.TaskID)); na {
		return o
	}
	outcome := m.outcome()
	want, path, got, bad := c.applied(m, "the completion.report sent before the crash")
	if bad != nil {
		return *bad
	}
	if got != want {
		msg := "the crashed run's result was not applied (outcome-driven recovery)"
		switch got {
		case spec.Ready:
			msg = "blind requeue: the task went back to ready although run_result.json says " + outcome
		case spec.InProgress:
			msg = "the stale task was never recovered: still in progress"
		}
		o := conform.Mismatch(msg, path, "tasks/"+got+"/")
		o.Seq = append([]int{m.e.Seq}, l.Seqs("exit")...)
		return o
	}
	return conform.Passf("outcome %s reported before the crash: %s", outcome, path).At(m.e.Seq)
}

// handoffRequests are the handoff.request envelopes of a launch.
func handoffRequests(l *Launch) []aofMsg {
	return filter(aofOut(l), func(m aofMsg) bool { return m.typ == spec.TypeHandoffRequest })
}

func aofChildDispatched(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	if c.seeded.DelegationDepth() != 0 {
		return conform.NotTestedf("the given task is itself delegated: its requests are nested")
	}
	req := c.childRequest(l)
	if req == nil {
		return conform.NotTestedf("the agent sent no valid handoff.request for a child of %s (the scenario's cue failed)", c.given.TaskID)
	}
	child, to := req.taskID(), req.handoff().ToAgent.V
	t := c.task(child)
	if t.Status() == "" {
		return conform.NotTestedf("the child task %s has no task file (the agent's job)", child)
	}
	if t.Handoff == nil {
		return conform.Mismatch("the accepted handoff wrote no inputs/handoff.json for the child", "tasks/<status>/"+child+"/inputs/handoff.json", "(no file)").At(req.e.Seq)
	}
	var h engaof.Handoff
	if err := json.Unmarshal(t.Handoff, &h); err != nil || h.TaskID != child || h.ParentTaskID != c.given.TaskID || h.ToAgent != to {
		return conform.Mismatch("the child's inputs/handoff.json is not the request's payload", fmt.Sprintf("taskId %s, parentTaskId %s, toAgent %s", child, c.given.TaskID, to), strings.TrimSpace(string(t.Handoff))).At(req.e.Seq)
	}
	if t.Task == nil || t.Task.DelegationDepth() != 1 {
		depth := "unreadable task file"
		if t.Task != nil {
			depth = fmt.Sprintf("delegationDepth %d", t.Task.DelegationDepth())
		}
		return conform.Mismatch("the child's metadata.delegationDepth is not its parent's + 1", "delegationDepth 1", depth)
	}
	runs := c.launchesOn(child)
	if len(runs) == 0 {
		return conform.Mismatch("the child task was never dispatched", "a launch with AOF_TASK_ID="+child+", AOF_AGENT_ID="+to, fmt.Sprintf("%d launch(es), none on %s; the child ends %s", len(c.ls), child, t.Status())).At(req.e.Seq)
	}
	if got := runs[0].Env["AOF_AGENT_ID"]; got != to {
		return conform.Mismatch("the child task was dispatched to another agent than the handoff's toAgent", "AOF_AGENT_ID="+to, "AOF_AGENT_ID="+got)
	}
	return conform.Passf("child %s: inputs/handoff.json written, delegationDepth 1, dispatched to %s (launch %d)", child, to, runs[0].N).At(req.e.Seq)
}

func aofNestedRejected(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	if !spec.NestedDelegation(int64(c.seeded.DelegationDepth())) {
		return conform.NotTestedf("the given task is not a delegated child: its requests are not nested")
	}
	req := c.childRequest(l)
	if req == nil {
		return conform.NotTestedf("the delegated child sent no valid handoff.request (the scenario's cue failed)")
	}
	g := req.taskID()
	t := c.task(g)
	seq := []int{req.e.Seq}
	if t.Handoff != nil {
		return conform.Mismatch("the nested delegation was accepted: the grandchild got inputs/handoff.json", "no handoff artifacts (depth 2 is rejected)", "tasks/"+t.Status()+"/"+g+"/inputs/handoff.json").At(seq...)
	}
	if runs := c.launchesOn(g); len(runs) > 0 {
		return conform.Mismatch("the nested delegation's task was dispatched", "no launch on "+g, fmt.Sprintf("launch %d with AOF_TASK_ID=%s", runs[0].N, g)).At(seq...)
	}
	if !c.state.HasEvent("delegation.rejected", engaof.ReasonNestedDelegation, g) {
		return conform.Mismatch("no delegation.rejected event with reason nested_delegation", `events/*.jsonl: {"type":"delegation.rejected","taskId":"`+g+`","payload":{"reason":"nested_delegation"}}`, fmt.Sprintf("%d event(s), none of them", len(c.state.Events))).At(seq...)
	}
	return conform.Passf("the handoff.request for %s from a depth-%d task was rejected as nested_delegation; no handoff written, nothing dispatched", g, c.seeded.DelegationDepth()).At(seq...)
}

func aofInvalidRejected(s *conform.Session) conform.Outcome {
	c, l, bad := aofFirst(s)
	if bad != nil {
		return *bad
	}
	type invalid struct {
		e               *Event
		reason, problem string
		taskID, typ     string
	}
	var inv []invalid
	var report *invalid // the first invalid completion.report
	for i := range l.Events {
		e := &l.Events[i]
		if e.Kind != "stdout" {
			continue
		}
		p := engaof.EnvelopeProblem([]byte(e.Line))
		if p == "" {
			continue
		}
		v := invalid{e: e, problem: p}
		v.reason, _, _ = strings.Cut(p, ":")
		line := e.Line
		env := engaof.EnvelopeOf(&conform.Record{Text: &line})
		if env == nil && harness.IsJSONObject([]byte(line)) {
			env = engaof.EnvelopeOf(&conform.Record{Msg: json.RawMessage(line)})
		}
		if env != nil {
			v.typ = env.Type.V
			if engaof.ValidTaskID(env.TaskID.V) {
				v.taskID = env.TaskID.V
			}
		}
		inv = append(inv, v)
		if v.typ == spec.TypeCompletion && report == nil {
			report = &inv[len(inv)-1]
		}
	}
	if len(inv) == 0 {
		return conform.NotTestedf("the agent sent no line the router must reject (the scenario's cue failed)")
	}
	t := c.task(c.given.TaskID)
	if report != nil && completionOf(l) == nil {
		seq := []int{report.e.Seq}
		if t.Result != nil {
			return conform.Mismatch("run_result.json was written from an invalid completion.report ("+report.problem+")", "no run_result.json", strings.TrimSpace(string(t.Result))).At(seq...)
		}
		switch t.Status() {
		case spec.Review, spec.Done, spec.Blocked:
			return conform.Mismatch("the invalid completion.report moved the task", "no completion transition", "tasks/"+t.Status()+"/").At(seq...)
		}
	}
	for _, v := range inv {
		if !c.state.HasEvent("protocol.message.rejected", v.reason, v.taskID) {
			return conform.Mismatch("a line the router must reject ("+v.problem+") was not logged as rejected",
				`events/*.jsonl: {"type":"protocol.message.rejected","taskId":"`+v.taskID+`","payload":{"reason":"`+v.reason+`"}}`, fmt.Sprintf("%d event(s), none of them", len(c.state.Events))).At(v.e.Seq)
		}
	}
	return conform.Passf("%d invalid line(s) rejected and logged (%s); no run_result.json or transition from an invalid report", len(inv), inv[0].problem).At(inv[0].e.Seq)
}
