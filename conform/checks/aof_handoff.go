package checks

import (
	"fmt"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/conform"
)

var aofHandoffNoNestedDelegation = &conform.Check{
	ID:          "aof/handoff/no-nested-delegation",
	Family:      "delegation",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aof-1 §Delegation Depth Guard",
	Requirement: "Sub-agents cannot spawn sub-agents: with delegationDepth 1 the agent never sends handoff.request (it would be rejected as nested_delegation).",
	Lint:        []string{"AOF-SEQ-001"},
	After:       []string{"aof/lint/messages-valid", "aof/heartbeat/fresh", "aof/run/within-deadline", "aof/completion/reported"},
	Bad:         `delegationDepth 1, the agent sends handoff.request`,
	Good:        `delegationDepth 1, the agent does the work itself`,
	Run: func(s *conform.Session) conform.Outcome {
		depth := aofTask(s).Metadata.DelegationDepth
		reqs := aofEnvelopes(s, "handoff.request")
		if depth >= 1 && len(reqs) > 0 {
			return conform.Mismatch("a delegated child tried to delegate further", "no handoff.request at delegationDepth 1", fmt.Sprintf("%d handoff.request", len(reqs))).At(reqs[0].r.Seq)
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
	},
}

var aofHandoffRequestValid = &conform.Check{
	ID:          "aof/handoff/request-valid",
	Family:      "delegation",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "aof-1 §Handoff Request Payload",
	Requirement: "handoff.request payload: taskId (must match envelope taskId), parentTaskId (the delegating task), fromAgent, toAgent and dueBy (ISO 8601) are required.",
	Lint:        []string{"AOF-HANDOFF-001"},
	After:       []string{"aof/heartbeat/fresh", "aof/run/within-deadline", "aof/completion/reported"},
	Bad:         `handoff.request without dueBy, or with a parentTaskId that is not the agent's task`,
	Good:        `"payload":{"taskId":"<child>","parentTaskId":"<own task>","fromAgent":"…","toAgent":"swe-qa","dueBy":"2026-12-01T12:00:00.000Z"}`,
	Run: func(s *conform.Session) conform.Outcome {
		task := aofTask(s).TaskID
		reqs := aofEnvelopes(s, "handoff.request")
		for _, l := range reqs {
			p := l.env.Handoff
			if p == nil { // the payload is no object
				p = &spec.HandoffRequest{}
			}
			var problems []string
			mismatch := p.TaskID.V != l.env.TaskID.V
			if mismatch {
				problems = append(problems, "payload.taskId must match the envelope taskId")
			}
			if p.ParentTaskID.V != task {
				problems = append(problems, fmt.Sprintf("parentTaskId %q must be the delegating task %s", p.ParentTaskID.V, task))
			}
			if p.FromAgent.V == "" || p.ToAgent.V == "" {
				problems = append(problems, "fromAgent and toAgent are required")
			}
			if _, _, ok := spec.ParseTime(p.DueBy.V); !ok {
				problems = append(problems, "dueBy must be an ISO 8601 date-time")
			}
			if mismatch && len(problems) == 1 {
				// aof/envelope/task-and-sender's rule (AOF-ENV-005), told once.
				return conform.NotJudgedf("aof/envelope/task-and-sender", "record %d: payload.taskId %q differs from the envelope taskId %q", l.r.Seq, p.TaskID.V, l.env.TaskID.V).At(l.r.Seq)
			}
			if o := invalid(l.r.Seq, ": invalid handoff.request", "a valid handoff payload", problems); o != nil {
				return *o
			}
		}
		if len(reqs) == 0 {
			return conform.NotTestedf("the agent did not delegate")
		}
		return conform.Passf("%d valid handoff requests", len(reqs))
	},
}

var aofHandoffAcknowledged = &conform.Check{
	ID:          "aof/handoff/acknowledged",
	Family:      "delegation",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aof-1 §Handoff Acceptance/Rejection, §Best Practices 3; bindings §aof",
	Requirement: "A delegated child (inputs/handoff.json in its task directory) sends handoff.accepted or handoff.rejected for its task, before its completion.report.",
	Lint:        []string{"AOF-SEQ-002"},
	Bad:         `a delegated child works without answering its inputs/handoff.json`,
	Good:        `{"type":"handoff.accepted","payload":{"taskId":"…","accepted":true}} first`,
	Run: func(s *conform.Session) conform.Outcome {
		if !conform.FactAOFHandoff.Get(s) {
			return conform.NotTestedf("the task has no handoff")
		}
		task := aofTask(s).TaskID
		completion := 0
		for _, l := range aofEnvelopes(s) {
			if l.env.TaskID.V != task {
				continue
			}
			switch l.env.Type.V {
			case "handoff.accepted", "handoff.rejected":
				if completion > 0 {
					return conform.Mismatch("the handoff was acknowledged only after the completion report", "handoff.accepted|rejected before completion.report", fmt.Sprintf("ack at record %d, completion at %d", l.r.Seq, completion)).At(l.r.Seq)
				}
				return conform.Outcome{Verdict: conform.Pass, Message: "handoff acknowledged with " + l.env.Type.V, Seq: []int{l.r.Seq}}
			case "completion.report":
				if completion == 0 {
					completion = l.r.Seq
				}
			}
		}
		return conform.Mismatch("the delegated child never acknowledged its handoff", "handoff.accepted or handoff.rejected for "+task, "none")
	},
}
