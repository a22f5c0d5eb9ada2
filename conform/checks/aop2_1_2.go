package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var aop2ResponseIDs = &conform.Check{
	ID:          "aop2/1.2/response-ids",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop2 §1.2, §5",
	Requirement: "The RESPONSE carries the session_id and task_id of the TASK it answers.",
	Lint:        []string{"AOP2-SEQ-001"},
	Bad:         `TASK task_id "TASK-001" answered with "task_id":"TASK-001-OTHER"`,
	Good:        `"session_id":"AOP-SESSION-…-001","task_id":"TASK-001" copied from the TASK`,
	Run: func(s *conform.Session) conform.Outcome {
		r, m, bad := aop2Final(s)
		if bad != nil {
			return *bad
		}
		task := aop2Task(s, s.Last().N)
		want := map[string]string{"session_id": task.Session.SessionID, "task_id": task.Task.TaskID}
		got := map[string]string{"session_id": m.SessionID, "task_id": m.TaskID}
		if want != nil && (want["session_id"] != got["session_id"] || want["task_id"] != got["task_id"]) {
			return conform.Mismatch("the RESPONSE answers another session or task", want, got).At(r.Seq)
		}
		return conform.Passf("session_id and task_id match the TASK")
	},
}

var aop2MessageTypes = &conform.Check{
	ID:          "aop2/1.2/message-types",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop2 §1.2",
	Requirement: "message_type is \"TASK\" | \"RESPONSE\" | \"EVENT\".",
	Lint:        []string{"AOP2-ENVELOPE-001", "AOP2-ENVELOPE-006"},
	Bad:         `{"aop_version":"2.0.2-C","message_type":"STATUS","status":"working"}`,
	Good:        `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"PROGRESS_UPDATE",...}`,
	Run: func(s *conform.Session) conform.Outcome {
		for _, r := range s.AgentMsgs(0) {
			t := aop2Header(s, r).MessageType
			if t != "RESPONSE" && t != "EVENT" && t != "TASK" {
				return conform.Mismatch(fmt.Sprintf("record %d has message_type %q", r.Seq, t), "TASK, RESPONSE or EVENT", t).At(r.Seq)
			}
		}
		if len(s.AgentMsgs(0)) == 0 {
			return vacuous()
		}
		return conform.Passf("every message has a known message_type")
	},
}
