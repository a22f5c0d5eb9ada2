package checks

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

var aop2FinalResponse = &conform.Check{
	ID:          "aop2/5/final-response",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop2 §1.2, §5; bindings §aop2",
	Requirement: "RESPONSE – MUST contain task_status, agent, session_id, task_id; the agent writes exactly one final RESPONSE.",
	Lint:        []string{"AOP2-ENVELOPE-005", "AOP2-SEQ-004", "AOP2-SEQ-009"},
	After:       []string{"aop2/6.1/heartbeat-liveness", "aop2/11/finish-within-timeout", "aop2/6.2/progress-rate"},
	Bad:         `exit 0 without a RESPONSE, or two RESPONSE lines`,
	Good:        `exactly one RESPONSE with task_status, agent, session_id and task_id, then exit 0`,
	Run: func(s *conform.Session) conform.Outcome {
		a := s.Last()
		if a == nil {
			return conform.NotTestedf("the agent was never started")
		}
		rs := aop2Responses(s, a.N)
		if len(rs) == 0 && a.Timeout {
			// Still working when the scenario's deadline stopped it: an agent
			// too slow to finish, which aop2/11/finish-within-timeout reports
			// (in aop2-timeout; when it failed nowhere, ResolveDependencies
			// makes this a FAIL naming the missing RESPONSE).
			return stillWorking(s, a)
		}
		if len(rs) == 0 {
			// A line meant as a message that does not parse may be the RESPONSE,
			// malformed or cut short: the evidence (and its lint finding) is this
			// failure's.
			var broken []*conform.Record
			for _, r := range s.AgentLines(a.N, "stdout") {
				if meantAsMessage(r) {
					broken = append(broken, r)
				}
			}
			if len(broken) > 0 {
				return conform.Mismatch(fmt.Sprintf("the agent sent 0 RESPONSE messages; record %d starts a JSON object that does not parse (a RESPONSE malformed or cut short?)", broken[0].Seq), "exactly 1 RESPONSE", describeAttempt(s, a)).At(seqs(broken)...)
			}
		}
		if len(rs) != 1 {
			return conform.Mismatch(fmt.Sprintf("the agent sent %d RESPONSE messages", len(rs)), "exactly 1 RESPONSE", describeAttempt(s, a)).At(seqs(rs)...)
		}
		m := aop2Resp(s, rs[0])
		var missing []string
		for _, k := range []string{"task_status", "agent", "session_id", "task_id"} {
			if !m.HasValue(k) {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return conform.Mismatch("the RESPONSE lacks required fields", "task_status, agent, session_id, task_id", "missing: "+strings.Join(missing, ", ")).At(rs[0].Seq)
		}
		return conform.Outcome{Verdict: conform.Pass, Message: "one complete RESPONSE", Seq: []int{rs[0].Seq}}
	},
}

var aop2FinalSignal = &conform.Check{
	ID:          "aop2/5/final-signal",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop2 §5 (guard rails)",
	Requirement: "require_final_signal = true → must have task_status.state + task_status.final_signal; a final RESPONSE reports a terminal state.",
	Lint:        []string{"AOP2-SEQ-002", "AOP2-STATUS-001"},
	Bad:         `"task_status":{"state":"IN_PROGRESS","final_signal":"SUCCESS"}`,
	Good:        `"task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"done"}`,
	Run: func(s *conform.Session) conform.Outcome {
		r, m, bad := aop2Final(s)
		if bad != nil {
			return *bad
		}
		var state string
		if m.TaskStatus != nil {
			state = m.TaskStatus.State
		}
		sig := m.TaskStatus.Signal()
		gr := aop2Task(s, s.Last().N).GuardRails
		if gr != nil && isTrue(gr.RequireFinalSignal) && (state == "" || sig == "") {
			want := map[string]string{"state": orDash(state), "final_signal": orDash(sig)}
			if state == "" {
				want["state"] = "a terminal state"
			}
			if sig == "" {
				want["final_signal"] = "SUCCESS, FAILURE, ..."
			}
			// What the RESPONSE sent is wrong: no deadline explains it.
			return conform.Mismatch("require_final_signal is set but the RESPONSE lacks state or final_signal", want, map[string]string{"state": state, "final_signal": sig}).OnSent().At(r.Seq)
		}
		if aop2NonTerminal[state] {
			return conform.Mismatch(fmt.Sprintf("the final RESPONSE reports the non-terminal state %q", state), "a terminal state such as COMPLETED or FAILED", state).OnSent().At(r.Seq)
		}
		return conform.Passf("state %s, final_signal %s", state, sig)
	},
}

var aop2MinimalReport = &conform.Check{
	ID:          "aop2/5/minimal-report",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop2 §5 (guard rails)",
	Requirement: "require_minimal_report = true → must have non-empty summary + actions.",
	Lint:        []string{"AOP2-SEQ-003"},
	Bad:         `"execution_summary":{"summary":"","actions":[]}`,
	Good:        `"execution_summary":{"summary":"Refactored module X.","actions":["Read src/x.py.","Wrote src/x.py."]}`,
	Run: func(s *conform.Session) conform.Outcome {
		r, m, bad := aop2Final(s)
		if bad != nil {
			return *bad
		}
		if gr := aop2Task(s, s.Last().N).GuardRails; gr == nil || !isTrue(gr.RequireMinimalReport) {
			return conform.NotTestedf("the TASK does not set require_minimal_report")
		}
		var sum string
		var acts []*string
		if es := m.ExecutionSummary; es != nil {
			sum, acts = es.Summary, es.Actions
		}
		if strings.TrimSpace(sum) == "" || len(acts) == 0 {
			return conform.Mismatch("the report is empty", "a non-empty execution_summary.summary and actions", map[string]any{"summary": sum, "actions": len(acts)}).At(r.Seq)
		}
		return conform.Passf("summary and %d actions", len(acts))
	},
}

var aop2ArtifactsHonest = &conform.Check{
	ID:          "aop2/5/artifacts-honest",
	Family:      "stale-recovery",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "aop2 §5",
	Requirement: "output_artifacts report files that exist, with their real hash and size.",
	Bad:         `output_artifacts lists src/x.py with a hash, but the file is not in the workspace`,
	Good:        `output_artifacts lists files that exist, with their sha256`,
	Run: func(s *conform.Session) conform.Outcome {
		r, m, bad := aop2Final(s)
		if bad != nil {
			return *bad
		}
		files := conform.FactAOP2Files.Get(s)
		var arts []aop2spec.Artifact
		if m.ExecutionSummary != nil {
			arts = m.ExecutionSummary.OutputArtifacts
		}
		if len(arts) == 0 {
			// A RESPONSE without artifacts is a state a correct agent may
			// legitimately be in, in every scenario (whether an earlier
			// attempt was stopped or not): NOT-APPLICABLE, never NOT-TESTED.
			return conform.Outcome{Verdict: conform.NotApplicable, Message: "not applicable: the RESPONSE reports no output artifacts"}
		}
		ws := conform.FactAOP2Workspace.Get(s)
		for _, av := range arts {
			p, st := av.Path, av.Status
			if st == "DELETED" {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(p, ws), "/")
			sum, ok := files[rel]
			if !ok {
				return conform.Mismatch("an output artifact the RESPONSE reports does not exist", p+" in the workspace", "missing").At(r.Seq)
			}
			if h := av.Hash; strings.HasPrefix(h, "sha256:") && h != "sha256:"+sum {
				return conform.Mismatch("an output artifact's hash does not match the file", h, "sha256:"+sum).At(r.Seq)
			}
		}
		return conform.Passf("%d artifacts exist as reported", len(arts))
	},
}
