package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/conform"
)

var aofC = common{protocol: "aof", bindings: "bindings §aof"}

func aofCheck(id, family string, tier conform.Tier, level conform.Level, spec, req string, lint []string, run func(*conform.Session) conform.Outcome) *conform.Check {
	return &conform.Check{ID: "aof/" + id, Protocol: "aof", Family: family, Tier: tier, Level: level, Spec: spec, Requirement: req, Lint: lint, Run: run}
}

// aofLine is one stdout line that is meant as an AOF envelope.
type aofLine struct {
	r   *conform.Record
	env map[string]any // nil when it does not parse
}

// aofLines returns the stdout lines meant as envelopes: "AOF/1 " prefixed or JSON
// objects.
func aofLines(s *conform.Session) []aofLine {
	var out []aofLine
	for _, r := range s.AgentLines(0, "stdout") {
		body, prefixed := spec.TrimPrefix(recordText(r))
		if !prefixed && !strings.HasPrefix(body, "{") {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader([]byte(body)))
		dec.UseNumber()
		if dec.Decode(&m) != nil || dec.More() {
			out = append(out, aofLine{r: r})
			continue
		}
		out = append(out, aofLine{r: r, env: m})
	}
	return out
}

func aofEnv(s *conform.Session, key string) string {
	if a := s.Attempt(1); a != nil {
		_ = a
	}
	switch key {
	case "task":
		return str(decode(s.Scenario.Task), "taskId")
	}
	return ""
}

func aofCompletions(s *conform.Session) []aofLine {
	var out []aofLine
	for _, l := range aofLines(s) {
		if l.env != nil && str(l.env, "type") == "completion.report" {
			out = append(out, l)
		}
	}
	return out
}

func one(l aofLine) []int { return []int{l.r.Seq} }

var aofChecks = []*conform.Check{
	aofC.lintClean("aof-1 §Protocol Envelope, §Message Types"),
	aofC.exitZero("The agent sends its envelopes on stdout and exits 0 when its session ends."),
	aofC.stopOnTerm("timeouts"),
	aofC.stdoutOnly(conform.Full, conform.MUST, "aof-1 §Message Detection; bindings §aof",
		"The agent writes AOF envelopes on stdout, one per line, bare JSON or with the AOF/1 prefix; logs go to stderr.",
		func(r *conform.Record) bool { return r.Key != "" }),

	aofCheck("envelope/json", "happy-path", conform.Core, conform.MUST, "aof-1 §Message Detection, §Validation",
		"A line meant as a protocol message (JSON, or the AOF/1 prefix) is valid JSON (else protocol.message.rejected, invalid_json).",
		[]string{"GEN-JSON-001"},
		func(s *conform.Session) conform.Outcome {
			ls := aofLines(s)
			if len(ls) == 0 {
				return conform.Failf("the agent sent no envelope")
			}
			for _, l := range ls {
				if l.env == nil {
					o := conform.Mismatch(fmt.Sprintf("record %d is not valid JSON", l.r.Seq), "a JSON envelope", conform.Clip(recordText(l.r), 200))
					o.Seq = one(l)
					return o
				}
			}
			return conform.Passf("%d envelopes parse", len(ls))
		}),

	aofCheck("envelope/fields", "happy-path", conform.Core, conform.MUST, "aof-1 §Envelope Fields",
		"protocol must be \"aof\", version must be 1, type is a ProtocolMessageType, taskId matches TASK-YYYY-MM-DD-NNN, fromAgent, toAgent, sentAt (ISO 8601) and payload are required.",
		[]string{"AOF-ENV-001", "AOF-ENV-002", "AOF-ENV-003", "AOF-ENV-004", "AOF-TIME-001"},
		func(s *conform.Session) conform.Outcome {
			n := 0
			for _, l := range aofLines(s) {
				if l.env == nil {
					continue
				}
				n++
				e := l.env
				var problems []string
				if str(e, "protocol") != "aof" {
					problems = append(problems, "protocol must be \"aof\"")
				}
				if v, ok := num(e, "version"); !ok || v != 1 {
					problems = append(problems, fmt.Sprintf("version must be 1 (got %v)", field(e, "version")))
				}
				if !spec.KnownType(str(e, "type")) {
					problems = append(problems, fmt.Sprintf("type %q is not a ProtocolMessageType", str(e, "type")))
				}
				if !spec.ValidTaskID(str(e, "taskId")) {
					problems = append(problems, fmt.Sprintf("taskId %q must match TASK-YYYY-MM-DD-NNN", str(e, "taskId")))
				}
				if str(e, "fromAgent") == "" || str(e, "toAgent") == "" {
					problems = append(problems, "fromAgent and toAgent are required")
				}
				if _, _, ok := spec.ParseTime(str(e, "sentAt")); !ok {
					problems = append(problems, fmt.Sprintf("sentAt %q is not an ISO 8601 date-time", str(e, "sentAt")))
				}
				if _, ok := field(e, "payload").(map[string]any); !ok {
					problems = append(problems, "payload object is required")
				}
				if len(problems) > 0 {
					o := conform.Mismatch(fmt.Sprintf("record %d: invalid envelope", l.r.Seq), "a valid AOF/1 envelope", strings.Join(problems, "\n"))
					o.Seq = one(l)
					return o
				}
			}
			if n == 0 {
				return conform.Failf("the agent sent no envelope")
			}
			return conform.Passf("%d valid envelopes", n)
		}),

	aofCheck("envelope/task-and-sender", "happy-path", conform.Core, conform.MUST, "aof-1 §Envelope Fields, §Status Update Payload; bindings §aof",
		"Envelopes about the leased task carry its taskId and fromAgent = AOF_AGENT_ID, the lease holder; a handoff.request's payload.taskId matches its envelope taskId.",
		[]string{"AOF-ENV-005", "AOF-ENV-006"},
		func(s *conform.Session) conform.Outcome {
			task := aofEnv(s, "task")
			for _, l := range aofLines(s) {
				if l.env == nil {
					continue
				}
				// aof-1 requires the match on handoff.request only (§Handoff Request
				// Payload); elsewhere a mismatch is AOF-ENV-005's warning.
				if pt := str(l.env, "payload", "taskId"); str(l.env, "type") == "handoff.request" && pt != "" && pt != str(l.env, "taskId") {
					o := conform.Mismatch(fmt.Sprintf("record %d: payload.taskId differs from the envelope taskId", l.r.Seq), str(l.env, "taskId"), pt)
					o.Seq = one(l)
					return o
				}
				if str(l.env, "taskId") == task && str(l.env, "fromAgent") != "agent-under-test" {
					o := conform.Mismatch(fmt.Sprintf("record %d is sent as another agent", l.r.Seq), "fromAgent \"agent-under-test\" (AOF_AGENT_ID)", str(l.env, "fromAgent"))
					o.Seq = one(l)
					return o
				}
			}
			if len(aofLines(s)) == 0 {
				return conform.Failf("the agent sent no envelope")
			}
			return conform.Passf("envelopes name the leased task and its holder")
		}),

	aofCheck("completion/reported", "happy-path", conform.Core, conform.MUST, "aof-1 §Best Practices, §Completion Protocol; bindings §aof",
		"Always send completion.report before session ends: exactly one valid completion.report for the leased task.",
		[]string{"AOF-SEQ-004", "AOF-SEQ-006"},
		func(s *conform.Session) conform.Outcome {
			task := aofEnv(s, "task")
			var mine []aofLine
			for _, l := range aofCompletions(s) {
				if str(l.env, "taskId") == task {
					mine = append(mine, l)
				}
			}
			a := s.Last()
			if a == nil {
				return conform.NotTestedf("the agent was never started")
			}
			if len(mine) != 1 {
				o := conform.Mismatch(fmt.Sprintf("the agent sent %d completion reports for %s", len(mine), task), "exactly 1 completion.report", describeAttempt(s, a))
				for _, l := range mine {
					o.Seq = append(o.Seq, l.r.Seq)
				}
				return o
			}
			return conform.Outcome{Verdict: conform.Pass, Message: "one completion.report", Seq: one(mine[0])}
		}),

	aofCheck("completion/payload", "happy-path", conform.Core, conform.MUST, "aof-1 §Completion Report Payload",
		"outcome (done|blocked|needs_review|partial), summaryRef, tests {total, passed, failed} and notes are required; passed + failed ≤ total; blocked needs blockers; notes at most 10,000 characters.",
		[]string{"AOF-COMP-", "AOF-LIMIT-001"},
		func(s *conform.Session) conform.Outcome {
			cs := aofCompletions(s)
			if len(cs) == 0 {
				return aofNoCompletion()
			}
			for _, l := range cs {
				p := field(l.env, "payload")
				var problems []string
				switch o := str(p, "outcome"); {
				case !spec.ValidOutcome(o):
					problems = append(problems, fmt.Sprintf("outcome %q is not done|blocked|needs_review|partial", o))
				case o == spec.OutcomeBlocked:
					if bl, _ := field(p, "blockers").([]any); len(bl) == 0 {
						problems = append(problems, "outcome blocked needs blockers")
					}
				}
				if str(p, "summaryRef") == "" {
					problems = append(problems, "summaryRef is required")
				}
				tot, ok1 := num(p, "tests", "total")
				pass, ok2 := num(p, "tests", "passed")
				fail, ok3 := num(p, "tests", "failed")
				if !ok1 || !ok2 || !ok3 {
					problems = append(problems, "tests {total, passed, failed} is required")
				} else if pass+fail > tot || pass < 0 || fail < 0 {
					problems = append(problems, fmt.Sprintf("tests: passed %g + failed %g exceeds total %g", pass, fail, tot))
				}
				notes, ok := field(p, "notes").(string)
				if !ok {
					problems = append(problems, "notes is required")
				} else if len([]rune(notes)) > spec.MaxNotes {
					problems = append(problems, fmt.Sprintf("notes has %d characters (limit %d)", len([]rune(notes)), spec.MaxNotes))
				}
				if len(problems) > 0 {
					o := conform.Mismatch(fmt.Sprintf("record %d: invalid completion.report payload", l.r.Seq), "a valid completion payload", strings.Join(problems, "\n"))
					o.Seq = one(l)
					return o
				}
			}
			return conform.Passf("completion payload valid")
		}),

	aofCheck("completion/summary-exists", "happy-path", conform.Full, conform.SHOULD, "aof-1 §Completion Protocol (Error Cases)",
		"The summaryRef and deliverables a completion.report names exist (missing summary files only produce a warning).",
		nil,
		func(s *conform.Session) conform.Outcome {
			cs := aofCompletions(s)
			if len(cs) == 0 {
				return aofNoCompletion()
			}
			files := map[string]bool{}
			fl := conform.FactAOFFiles.Get(s)
			for _, f := range fl {
				files[f] = true
			}
			taskDir := conform.FactAOFTaskDir.Get(s)
			exists := func(p string) bool {
				p = strings.TrimPrefix(p, "./")
				for _, base := range []string{"", taskDir + "/", strings.Replace(taskDir, "in-progress", "review", 1) + "/", "runs/" + aofEnv(s, "task") + "/"} {
					if files[base+p] {
						return true
					}
				}
				return false
			}
			p := field(cs[len(cs)-1].env, "payload")
			refs := []string{str(p, "summaryRef")}
			if ds, ok := field(p, "deliverables").([]any); ok {
				for _, d := range ds {
					if ds, ok := d.(string); ok {
						refs = append(refs, ds)
					}
				}
			}
			for _, ref := range refs {
				if ref != "" && !exists(ref) {
					o := conform.Outcome{Verdict: conform.Warn, Message: "a file the completion report names does not exist", Expected: ref + " under the task directory", Actual: "missing"}
					o.Seq = one(cs[len(cs)-1])
					return o
				}
			}
			return conform.Passf("%d referenced files exist", len(refs))
		}),

	aofCheck("status/valid-transition", "happy-path", conform.Core, conform.MUST, "aof-1 §Task Lifecycle, §Routing Behavior",
		"status.update with status triggers a transition only along the lifecycle (backlog → ready → in-progress → review → done, blocked); an agent never asks for a forbidden one.",
		[]string{"AOF-SEQ-003", "AOF-STATUS-"},
		func(s *conform.Session) conform.Outcome {
			task := aofEnv(s, "task")
			cur := spec.InProgress
			for _, l := range aofLines(s) {
				if l.env == nil || str(l.env, "type") != "status.update" || str(l.env, "taskId") != task {
					continue
				}
				to := str(l.env, "payload", "status")
				if to == "" || to == cur {
					continue
				}
				if !spec.ValidTransition(cur, to) {
					o := conform.Mismatch(fmt.Sprintf("record %d asks for the transition %s → %s", l.r.Seq, cur, to), "a transition the lifecycle allows from "+cur+": "+strings.Join(spec.AllowedFrom(cur), ", "), cur+" → "+to)
					o.Seq = one(l)
					return o
				}
				cur = to
			}
			if len(aofLines(s)) == 0 {
				return conform.Failf("the agent sent no envelope")
			}
			return conform.Passf("transitions valid")
		}),

	aofCheck("handoff/no-nested-delegation", "delegation", conform.Resilient, conform.MUST, "aof-1 §Delegation Depth Guard",
		"Sub-agents cannot spawn sub-agents: with delegationDepth 1 the agent never sends handoff.request (it would be rejected as nested_delegation).",
		[]string{"AOF-SEQ-001"},
		func(s *conform.Session) conform.Outcome {
			depth, _ := num(decode(s.Scenario.Task), "metadata", "delegationDepth")
			var reqs []aofLine
			for _, l := range aofLines(s) {
				if l.env != nil && str(l.env, "type") == "handoff.request" {
					reqs = append(reqs, l)
				}
			}
			if depth >= 1 && len(reqs) > 0 {
				o := conform.Mismatch("a delegated child tried to delegate further", "no handoff.request at delegationDepth 1", fmt.Sprintf("%d handoff.request", len(reqs)))
				o.Seq = one(reqs[0])
				return o
			}
			if ev := s.Events(conform.EventDelegationRejected); len(ev) > 0 {
				return conform.Mismatch("the router rejected a delegation as nested", "no nested delegation", "delegation.rejected nested_delegation")
			}
			if depth < 1 {
				return conform.NotTestedf("the task is not a delegated child")
			}
			if a := s.Last(); a == nil || !a.EndedCleanly() {
				// Stopped before it finished: it may not have reached the point
				// where it would delegate.
				return conform.NotTestedf("the agent did not finish its task (it was stopped or failed): whether it would delegate is unknown")
			}
			return conform.Passf("no delegation attempted")
		}),

	aofCheck("handoff/request-valid", "delegation", conform.Full, conform.MUST, "aof-1 §Handoff Request Payload",
		"handoff.request payload: taskId (must match envelope taskId), parentTaskId (the delegating task), fromAgent, toAgent and dueBy (ISO 8601) are required.",
		[]string{"AOF-HANDOFF-001"},
		func(s *conform.Session) conform.Outcome {
			task := aofEnv(s, "task")
			n := 0
			for _, l := range aofLines(s) {
				if l.env == nil || str(l.env, "type") != "handoff.request" {
					continue
				}
				n++
				p := field(l.env, "payload")
				var problems []string
				if str(p, "taskId") != str(l.env, "taskId") {
					problems = append(problems, "payload.taskId must match the envelope taskId")
				}
				if str(p, "parentTaskId") != task {
					problems = append(problems, fmt.Sprintf("parentTaskId %q must be the delegating task %s", str(p, "parentTaskId"), task))
				}
				if str(p, "fromAgent") == "" || str(p, "toAgent") == "" {
					problems = append(problems, "fromAgent and toAgent are required")
				}
				if _, _, ok := spec.ParseTime(str(p, "dueBy")); !ok {
					problems = append(problems, "dueBy must be an ISO 8601 date-time")
				}
				if len(problems) > 0 {
					o := conform.Mismatch(fmt.Sprintf("record %d: invalid handoff.request", l.r.Seq), "a valid handoff payload", strings.Join(problems, "\n"))
					o.Seq = one(l)
					return o
				}
			}
			if n == 0 {
				return conform.NotTestedf("the agent did not delegate")
			}
			return conform.Passf("%d valid handoff requests", n)
		}),

	aofCheck("heartbeat/fresh", "heartbeats", conform.Resilient, conform.MUST, "aof-1 §Resume Protocol (run_heartbeat.json, Stale Heartbeat Flow)",
		"run_heartbeat.json is updated periodically by the executor: it never expires (expiresAt ≤ now) while the run is alive.",
		[]string{"AOF-SEQ-007", "AOF-RUN-001"},
		func(s *conform.Session) conform.Outcome {
			if ev := s.Events(conform.EventStaleHeartbeat); len(ev) > 0 {
				o := conform.Mismatch("the scheduler found the run's heartbeat stale and reclaimed the task", "run_heartbeat.json refreshed within its TTL", "expired at "+conform.KeyExpiresAt.Get(ev[0].Detail))
				o.Seq = seqs(ev)
				return o
			}
			if s.Last() == nil {
				return conform.NotTestedf("the agent was never started")
			}
			return conform.Passf("the heartbeat stayed fresh")
		}),

	aofCheck("run/within-deadline", "timeouts", conform.Resilient, conform.MUST, "aof-1 §Resume Protocol; bindings §aof",
		"The run ends (completion.report, then exit) before the scenario's deadline; a run that never ends is stopped and reported.",
		nil,
		func(s *conform.Session) conform.Outcome {
			if ev := s.Events(conform.EventTimeout); len(ev) > 0 {
				o := conform.Mismatch("the run was still going at the deadline", "completion and exit before the deadline", "deadline reached; stopped by the harness")
				o.Seq = seqs(ev)
				return o
			}
			return conform.Passf("the run ended within the deadline")
		}),

	aofCheck("resume/clean-start", "stale-recovery", conform.Resilient, conform.MUST, "aof-1 §Resume Protocol, §Outcome-Driven Recovery",
		"A task re-dispatched after a stale-heartbeat reclaim starts cleanly: the agent completes it with its own completion.report and the task reaches review (or done, blocked).",
		nil,
		func(s *conform.Session) conform.Outcome {
			final := conform.FactAOFFinalStatus.Get(s)
			switch final {
			case "review", "done", "blocked":
				return conform.Passf("the task ended in %s", final)
			}
			return conform.Mismatch("the re-dispatched task did not reach a post-run status", "review, done or blocked", orDash(final))
		}),

	aofCheck("handoff/acknowledged", "delegation", conform.Resilient, conform.MUST, "aof-1 §Handoff Acceptance/Rejection, §Best Practices 3; bindings §aof",
		"A delegated child (inputs/handoff.json in its task directory) sends handoff.accepted or handoff.rejected for its task, before its completion.report.",
		[]string{"AOF-SEQ-002"},
		func(s *conform.Session) conform.Outcome {
			if !conform.FactAOFHandoff.Get(s) {
				return conform.NotTestedf("the task has no handoff")
			}
			task := aofEnv(s, "task")
			completion := 0
			for _, l := range aofLines(s) {
				if l.env == nil || str(l.env, "taskId") != task {
					continue
				}
				switch str(l.env, "type") {
				case "handoff.accepted", "handoff.rejected":
					if completion > 0 {
						o := conform.Mismatch("the handoff was acknowledged only after the completion report", "handoff.accepted|rejected before completion.report", fmt.Sprintf("ack at record %d, completion at %d", l.r.Seq, completion))
						o.Seq = one(l)
						return o
					}
					return conform.Outcome{Verdict: conform.Pass, Message: "handoff acknowledged with " + str(l.env, "type"), Seq: one(l)}
				case "completion.report":
					if completion == 0 {
						completion = l.r.Seq
					}
				}
			}
			return conform.Mismatch("the delegated child never acknowledged its handoff", "handoff.accepted or handoff.rejected for "+task, "none")
		}),
}

// aofNoCompletion is the outcome of a check that reads the completion.report when
// the agent sent none: the root cause, reported by aof/completion/reported.
func aofNoCompletion() conform.Outcome {
	return conform.NotJudgedf("aof/completion/reported", "the agent sent no completion.report")
}
