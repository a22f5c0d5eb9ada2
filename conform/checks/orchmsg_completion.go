package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var orchmsgCompletionReported = &conform.Check{
	ID:          "orchmsg/completion/reported",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "orchmsg §Progress Update; bindings §orchmsg",
	Requirement: "The agent reports the outcome of its assigned task: event:progress with progress 1 (or event:error) for the taskId, before it exits.",
	After:       []string{"orchmsg/lint/messages-valid", "orchmsg/format/json", "orchmsg/format/base-fields", "orchmsg/format/message-type", "orchmsg/correlation/unique-ids", "orchmsg/auth/own-tasks", "orchmsg/rate/limit", "orchmsg/requests/payload", "orchmsg/cancel/stops-task", "orchmsg/limit/message-size"},
	Timing:      true,
	Bad:         `the agent stops at progress 0.5 and idles`,
	Good:        `{"type":"event:progress","id":"evt-1b4e28ba-2fa1-11d2-883f-0016d3cca427","timestamp":"2026-11-22T10:00:00Z","payload":{"taskId":"task-123","progress":1,"message":"done"}}`,
	Run: func(s *conform.Session) conform.Outcome {
		task := orchmsgTaskID(s)
		for _, r := range orchmsgMsgs(s) {
			if !orchmsgTaskOver(s, r, task) {
				continue
			}
			if r.Key == "event:error" {
				return conform.Outcome{Verdict: conform.Pass, Message: "the agent reported an error for its task", Seq: []int{r.Seq}}
			}
			return conform.Outcome{Verdict: conform.Pass, Message: "the agent reported its task complete", Seq: []int{r.Seq}}
		}
		a := s.Last()
		if a == nil {
			return conform.NotTestedf("the agent was never started")
		}
		return conform.Mismatch("the agent never reported the outcome of task "+task, "event:progress with progress 1 (or event:error) for "+task, describeAttempt(s, a))
	},
}
