package checks

import (
	"fmt"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/conform"
)

var aofEnvelopeJSON = &conform.Check{
	ID:          "aof/envelope/json",
	Protocol:    "aof",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aof-1 §Message Detection, §Validation",
	Requirement: "A line meant as a protocol message (JSON, or the AOF/1 prefix) is valid JSON (else protocol.message.rejected, invalid_json).",
	Lint:        []string{"GEN-JSON-001"},
	Bad:         `AOF/1 {"protocol":"aof","version":1,"type":"status.update",`,
	Good:        `AOF/1 {"protocol":"aof",...,"payload":{...}}`,
	Run: func(s *conform.Session) conform.Outcome {
		ls := aofLines(s)
		if len(ls) == 0 {
			return conform.Failf("the agent sent no envelope")
		}
		for _, l := range ls {
			if l.env == nil {
				return conform.Mismatch(fmt.Sprintf("record %d is not valid JSON", l.r.Seq), "a JSON envelope", conform.Clip(recordText(l.r), 200)).At(l.r.Seq)
			}
		}
		return conform.Passf("%d envelopes parse", len(ls))
	},
}

var aofEnvelopeFields = &conform.Check{
	ID:          "aof/envelope/fields",
	Protocol:    "aof",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aof-1 §Envelope Fields",
	Requirement: "protocol must be \"aof\", version must be 1, type is a ProtocolMessageType, taskId matches TASK-YYYY-MM-DD-NNN, fromAgent, toAgent, sentAt (ISO 8601) and payload are required.",
	Lint:        []string{"AOF-ENV-001", "AOF-ENV-002", "AOF-ENV-003", "AOF-ENV-004", "AOF-TIME-001"},
	Bad:         `{"protocol":"aof","version":2,"sentAt":"22/11/2026 10:00:00",...}`,
	Good:        `{"protocol":"aof","version":1,"type":"status.update","taskId":"TASK-2026-11-22-001","fromAgent":"…","toAgent":"dispatcher","sentAt":"2026-11-22T10:00:00.000Z","payload":{...}}`,
	Run: func(s *conform.Session) conform.Outcome {
		envs := aofEnvelopes(s)
		for _, l := range envs {
			e := l.env
			var problems []string
			if str(e, "protocol") != "aof" {
				problems = append(problems, "protocol must be \"aof\"")
			}
			if v, ok := num(e, "version"); !ok || v != 1 {
				problems = append(problems, fmt.Sprintf("version must be 1 (got %v)", field(e, "version")))
			}
			if !spec.KnownType(str(e, "type")) {
				problems = append(problems, fmt.Sprintf("type %q is not a ProtocolMessageType", str(e, "type")))
			}
			if !spec.ValidTaskID(str(e, "taskId")) {
				problems = append(problems, fmt.Sprintf("taskId %q must match TASK-YYYY-MM-DD-NNN", str(e, "taskId")))
			}
			if str(e, "fromAgent") == "" || str(e, "toAgent") == "" {
				problems = append(problems, "fromAgent and toAgent are required")
			}
			if _, _, ok := spec.ParseTime(str(e, "sentAt")); !ok {
				problems = append(problems, fmt.Sprintf("sentAt %q is not an ISO 8601 date-time", str(e, "sentAt")))
			}
			if _, ok := field(e, "payload").(map[string]any); !ok {
				problems = append(problems, "payload object is required")
			}
			if o := invalid(l.r.Seq, ": invalid envelope", "a valid AOF/1 envelope", problems); o != nil {
				return *o
			}
		}
		if len(envs) == 0 {
			return conform.Failf("the agent sent no envelope")
		}
		return conform.Passf("%d valid envelopes", len(envs))
	},
}

var aofEnvelopeTaskAndSender = &conform.Check{
	ID:          "aof/envelope/task-and-sender",
	Protocol:    "aof",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aof-1 §Envelope Fields, §Status Update Payload; bindings §aof",
	Requirement: "Envelopes about the leased task carry its taskId and fromAgent = AOF_AGENT_ID, the lease holder; a handoff.request's payload.taskId matches its envelope taskId.",
	Lint:        []string{"AOF-ENV-005", "AOF-ENV-006"},
	Bad:         `"fromAgent":"impostor-agent", or payload.taskId naming another task`,
	Good:        `"fromAgent":"agent-under-test" and payload.taskId equal to the envelope taskId`,
	Run: func(s *conform.Session) conform.Outcome {
		task := aofEnv(s, "task")
		for _, l := range aofEnvelopes(s) {
			// aof-1 requires the match on handoff.request only (§Handoff Request
			// Payload); elsewhere a mismatch is AOF-ENV-005's warning.
			if pt := str(l.env, "payload", "taskId"); str(l.env, "type") == "handoff.request" && pt != "" && pt != str(l.env, "taskId") {
				return conform.Mismatch(fmt.Sprintf("record %d: payload.taskId differs from the envelope taskId", l.r.Seq), str(l.env, "taskId"), pt).At(l.r.Seq)
			}
			if str(l.env, "taskId") == task && str(l.env, "fromAgent") != "agent-under-test" {
				return conform.Mismatch(fmt.Sprintf("record %d is sent as another agent", l.r.Seq), "fromAgent \"agent-under-test\" (AOF_AGENT_ID)", str(l.env, "fromAgent")).At(l.r.Seq)
			}
		}
		if len(aofLines(s)) == 0 {
			return conform.Failf("the agent sent no envelope")
		}
		return conform.Passf("envelopes name the leased task and its holder")
	},
}
