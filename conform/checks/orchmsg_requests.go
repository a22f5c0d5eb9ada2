package checks

import (
	"fmt"
	"slices"

	"github.com/aopkit/aopkit/conform"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

var orchmsgRequestsPayload = &conform.Check{
	ID:          "orchmsg/requests/payload",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "orchmsg §Supported Requests, §Supported Events",
	Requirement: "Requests and events carry the payload their type defines (get-task: taskId; ask-user: question; submit-task: type and name; progress: taskId and progress 0..1; log: level and message; error: error).",
	Lint:        []string{"ORCH-PAYLOAD-", "ORCH-SCHEMA-001"},
	Bad:         `{"type":"request:get-task","id":"req-3f2b9c1e-7d4a-4e8b-9c6d-5a1b2c3d4e5f","timestamp":"2026-11-22T10:00:00Z","payload":{}}`,
	Good:        `{"type":"request:get-task","id":"req-3f2b9c1e-7d4a-4e8b-9c6d-5a1b2c3d4e5f","timestamp":"2026-11-22T10:00:00Z","payload":{"taskId":"task-123"}}`,
	Run: func(s *conform.Session) conform.Outcome {
		for _, r := range orchmsgMsgs(s) {
			p, ok := orchmsgMsg(s, r).Payload.Get()
			if !ok && r.Key != "request:query-agents" && r.Key != "request:query-tasks" {
				if spec.IsAgentType(r.Key) {
					return conform.Mismatch(fmt.Sprintf("record %d (%s) has no payload object", r.Seq, r.Key), "a payload object", "none").At(r.Seq)
				}
				continue
			}
			var problem, want string
			switch r.Key {
			case "request:get-task":
				if p.TaskID.V == "" {
					problem = "payload.taskId is required"
				}
			case "request:ask-user", "event:question":
				if p.Question.V == "" {
					problem = "payload.question is required"
				}
			case "request:submit-task":
				if p.Type.V == "" || p.Name.V == "" {
					problem = "payload.type and payload.name are required"
				}
			case "event:progress":
				v, ok := p.Progress.Get()
				switch {
				case p.TaskID.V == "" || !ok:
					problem = "payload.taskId and payload.progress (0..1) are required"
				case v < 0 || v > 1:
					problem = fmt.Sprintf("payload.progress is %v, outside 0..1 (a fraction, not a percentage)", v)
					want = "payload.progress from 0 to 1"
				}
			case "event:log":
				if !slices.Contains(spec.LogLevels, p.Level.V) || p.Message.V == "" {
					problem = "payload.level (info|warn|error) and payload.message are required"
				}
			case "event:error":
				if p.Error.V == "" {
					problem = "payload.error is required"
				}
			}
			if problem != "" {
				if want == "" {
					want = problem
				}
				return conform.Mismatch(fmt.Sprintf("record %d (%s): %s", r.Seq, r.Key, problem), want, conform.Clip(recordText(r), 300)).At(r.Seq)
			}
		}
		if len(orchmsgMsgs(s)) == 0 {
			return vacuous()
		}
		return conform.Passf("payloads well-formed")
	},
}
