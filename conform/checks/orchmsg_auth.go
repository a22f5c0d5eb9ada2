package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var orchmsgAuthOwnTasks = &conform.Check{
	ID:          "orchmsg/auth/own-tasks",
	Family:      "delegation",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "orchmsg §Security Considerations",
	Requirement: "Authorization: Agents can only query their own tasks (the assigned task and the tasks they submitted).",
	Bad:         `{"type":"request:get-task","payload":{"taskId":"task-other"}}`,
	Good:        `{"type":"request:get-task","payload":{"taskId":"task-123"}} (the assigned task)`,
	Run: func(s *conform.Session) conform.Outcome {
		own := map[string]bool{orchmsgTaskID(s): true}
		n := 0
		for _, r := range orchmsgMsgs(s) {
			switch r.Key {
			case "request:submit-task":
				// The tasks it submitted are its own, under the ids the
				// orchestrator answered with.
				if id := orchmsgSubmitted(s)[r.Seq]; id != "" {
					own[id] = true
				}
				continue
			case "request:get-task":
			default:
				continue
			}
			n++
			if id := orchmsgPayload(s, r).TaskID.V; id != "" && !own[id] {
				return conform.Mismatch(fmt.Sprintf("record %d asks for task %q, which is not the agent's", r.Seq, id), "the assigned task or a task the agent submitted", id).At(r.Seq)
			}
		}
		if n == 0 && len(orchmsgMsgs(s)) == 0 {
			return vacuous()
		}
		return conform.Passf("%d get-task requests, all for the agent's own tasks", n)
	},
}
