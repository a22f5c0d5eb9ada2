package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

var aop2NoDelegation = &conform.Check{
	ID:          "aop2/10/no-delegation",
	Family:      "delegation",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aop2 §1.2, §10, §12 E_MAX_DEPTH_EXCEEDED",
	Requirement: "With task.constraints.delegation_allowed = false the executor never dispatches sub-TASKs; delegation depth never exceeds 3; a TASK MUST NOT contain task_status.",
	Lint:        []string{"AOP2-SEQ-011", "AOP2-SEQ-016", "AOP2-ENVELOPE-003"},
	Bad:         `delegation_allowed:false, yet the agent prints {"message_type":"TASK","task":{"parent_task_id":"TASK-001",...}}`,
	Good:        `the agent does the work itself and prints no TASK`,
	Run: func(s *conform.Session) conform.Outcome {
		tasks := s.ByKey(0, "TASK")
		allowed := true
		for _, a := range s.Attempts {
			if v := aop2Input(s, a).Task.Constraints.DelegationAllowed; v != nil && !*v {
				allowed = false
			}
		}
		if len(tasks) == 0 {
			if len(s.AgentMsgs(0)) == 0 {
				return vacuous()
			}
			return conform.Passf("no sub-TASK dispatched")
		}
		if !allowed {
			return conform.Mismatch("the agent dispatched sub-TASKs although delegation_allowed is false", "no TASK from the agent", fmt.Sprintf("%d TASK messages", len(tasks))).At(seqs(tasks)...)
		}
		for _, r := range tasks {
			if aop2SubTask(s, r).HasValue("task_status") {
				return conform.Mismatch("a sub-TASK carries task_status", "no task_status in a TASK", "task_status present").At(r.Seq)
			}
		}
		// Depths by parent_task_id from the scenario's TASK (lint/spec/aop2, as
		// AOP2-SEQ-011): sibling sub-TASKs are not a chain.
		depth := map[string]int{}
		for _, a := range s.Attempts {
			in := aop2Input(s, a).Task
			if id := in.TaskID; id != "" {
				parent := in.ParentTaskID
				depth[id] = aop2spec.DelegationDepth(parent != "", false, 0)
			}
		}
		for _, r := range tasks {
			m := aop2SubTask(s, r).Task
			id, parent := m.TaskID, m.ParentTaskID
			pd, seen := depth[parent]
			d := aop2spec.DelegationDepth(parent != "", seen && parent != id, pd)
			if d > aop2spec.MaxDelegationDepth {
				return conform.Mismatch(fmt.Sprintf("sub-TASK %q is delegated %d levels deep", id, d), fmt.Sprintf("depth ≤ %d", aop2spec.MaxDelegationDepth), fmt.Sprintf("depth %d through parent_task_id %q", d, parent)).At(r.Seq)
			}
			if id != "" {
				depth[id] = d // the latest TASK of an id, as aoplint keeps it
			}
		}
		return conform.Passf("delegation within limits")
	},
}
