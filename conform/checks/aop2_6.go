package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

var aop2EventFormat = &conform.Check{
	ID:          "aop2/6/event-format",
	Family:      "heartbeats",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop2 §6.1, §6.2",
	Requirement: "EVENT messages carry event, session_id, task_id of the TASK and an ISO 8601 timestamp.",
	Lint:        []string{"AOP2-TIME-001"},
	Bad:         `{"message_type":"EVENT","event":"HEARTBEAT","timestamp":"22/11/2026 10:00",...}`,
	Good:        `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","session_id":"AOP-SESSION-2026-11-22-001","task_id":"TASK-001","timestamp":"2026-11-22T10:00:00Z"}`,
	Run: func(s *conform.Session) conform.Outcome {
		n := 0
		for _, a := range s.Attempts {
			task := aop2Input(s, a)
			for _, r := range s.AgentMsgs(a.N) {
				m := aop2Event(s, r)
				if m.MessageType != "EVENT" {
					continue
				}
				n++
				got := map[string]string{"event": m.Event, "session_id": m.SessionID, "task_id": m.TaskID, "timestamp": m.Timestamp}
				want := map[string]string{"event": got["event"], "session_id": task.Session.SessionID, "task_id": task.Task.TaskID, "timestamp": got["timestamp"]}
				_, _, tsOK := aop2spec.ParseTime(got["timestamp"])
				if got["event"] == "" || got["session_id"] != want["session_id"] || got["task_id"] != want["task_id"] || !tsOK {
					if !tsOK {
						want["timestamp"] = "an ISO 8601 date-time"
					}
					return conform.Mismatch(fmt.Sprintf("EVENT record %d is malformed", r.Seq), want, got).At(r.Seq)
				}
			}
		}
		if n == 0 {
			// Events are optional; the heartbeat checks say when they are owed.
			return conform.Passf("no EVENT sent")
		}
		return conform.Passf("%d well-formed events", n)
	},
}
