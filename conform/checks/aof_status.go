package checks

import (
	"fmt"
	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/conform"
)

var aofStatusValidTransition = &conform.Check{
	ID:          "aof/status/valid-transition",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aof-1 §Task Lifecycle, §Routing Behavior",
	Requirement: "status.update with status triggers a transition only along the lifecycle (backlog → ready → in-progress → review → done, blocked); an agent never asks for a forbidden one.",
	Lint:        []string{"AOF-SEQ-003", "AOF-STATUS-"},
	Bad:         `status.update "status":"done" while in-progress`,
	Good:        `status.update "status":"blocked" with blockers, or completion.report outcome done`,
	Run: func(s *conform.Session) conform.Outcome {
		task := aofTask(s).TaskID
		cur := spec.InProgress
		for _, l := range aofEnvelopes(s, "status.update") {
			if l.env.TaskID.V != task || l.env.Status == nil {
				continue // another task's, or a payload that is no object: no status
			}
			to := l.env.Status.Status.V
			if to == "" || to == cur {
				continue
			}
			if !spec.ValidTransition(cur, to) {
				return conform.Mismatch(fmt.Sprintf("record %d asks for the transition %s → %s", l.r.Seq, cur, to), "a transition the lifecycle allows from "+cur+": "+strings.Join(spec.AllowedFrom(cur), ", "), cur+" → "+to).At(l.r.Seq)
			}
			cur = to
		}
		if len(aofLines(s)) == 0 {
			return vacuous()
		}
		return conform.Passf("transitions valid")
	},
}
