package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

var orchmsgDelegationDepth = &conform.Check{
	ID:          "orchmsg/delegation/depth",
	Family:      "delegation",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "orchmsg §Submit Task; aop2 §12 E_MAX_DEPTH_EXCEEDED (engine policy)",
	Requirement: "Tasks the agent submits nest at most 3 deep (each submitted task depending on the previous one counts one level).",
	Bad:         `four request:submit-task, each depending on the previous one`,
	Good:        `one follow-up task depending on the assigned task`,
	Run: func(s *conform.Session) conform.Outcome {
		depth := map[string]int{orchmsgTaskID(s): 0}
		ids := orchmsgSubmitted(s)
		subs := s.ByKey(0, "request:submit-task")
		deepest := 0
		for _, r := range subs {
			var deps []int
			if ds, ok := orchmsgPayload(s, r).Dependencies.Get(); ok {
				for _, dv := range ds {
					if d, ok := depth[fmt.Sprint(dv)]; ok {
						deps = append(deps, d)
					}
				}
			}
			d := spec.SubmittedDepth(0, deps...)
			if id := ids[r.Seq]; id != "" {
				depth[id] = d
			}
			deepest = max(deepest, d)
			if d > spec.MaxDelegationDepth {
				return conform.Mismatch(fmt.Sprintf("the agent's submitted tasks nest deeper than %d levels", spec.MaxDelegationDepth), fmt.Sprintf("depth ≤ %d", spec.MaxDelegationDepth), fmt.Sprintf("depth %d at record %d", d, r.Seq)).At(r.Seq)
			}
		}
		if len(orchmsgMsgs(s)) == 0 {
			return vacuous()
		}
		return conform.Passf("%d submitted tasks, depth %d", len(subs), deepest)
	},
}
