package checks

import (
	"fmt"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/conform"
)

var aofEnvelopeJSON = &conform.Check{
	ID:          "aof/envelope/json",
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
			return vacuous()
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
			if e.Protocol.V != "aof" {
				problems = append(problems, "protocol must be \"aof\"")
			}
			if v, ok := aofNum(e.Version); !ok || v != 1 {
				problems = append(problems, fmt.Sprintf("version must be 1 (got %v)", e.Version.AnyNumber()))
			}
			if !spec.KnownType(e.Type.V) {
				problems = append(problems, fmt.Sprintf("type %q is not a ProtocolMessageType", e.Type.V))
			}
			if !spec.ValidTaskID(e.TaskID.V) {
				problems = append(problems, fmt.Sprintf("taskId %q must match TASK-YYYY-MM-DD-NNN", e.TaskID.V))
			}
			if e.FromAgent.V == "" || e.ToAgent.V == "" {
				problems = append(problems, "fromAgent and toAgent are required")
			}
			if _, _, ok := spec.ParseTime(e.SentAt.V); !ok {
				problems = append(problems, fmt.Sprintf("sentAt %q is not an ISO 8601 date-time", e.SentAt.V))
			}
			if !e.Payload.OK {
				problems = append(problems, "payload object is required")
			}
			if o := invalid(l.r.Seq, ": invalid envelope", "a valid AOF/1 envelope", problems); o != nil {
				return *o
			}
		}
		if len(envs) == 0 {
			return vacuous()
		}
		return conform.Passf("%d valid envelopes", len(envs))
	},
}

var aofEnvelopeTaskAndSender = &conform.Check{
	ID:          "aof/envelope/task-and-sender",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aof-1 §Envelope Fields, §Status Update Payload; bindings §aof",
	Requirement: "Envelopes about the leased task carry its taskId and fromAgent = AOF_AGENT_ID, the lease holder; a handoff.request's payload.taskId matches its envelope taskId.",
	Lint:        []string{"AOF-ENV-005", "AOF-ENV-006"},
	Bad:         `"fromAgent":"impostor-agent", or payload.taskId naming another task`,
	Good:        `"fromAgent":"agent-under-test" and payload.taskId equal to the envelope taskId`,
	Run: func(s *conform.Session) conform.Outcome {
		task := aofTask(s).TaskID
		for _, l := range aofEnvelopes(s) {
			e := l.env
			// aof-1 requires the match on handoff.request only (§Handoff Request
			// Payload); elsewhere a mismatch is AOF-ENV-005's warning.
			if h := e.Handoff; h != nil && h.TaskID.V != "" && h.TaskID.V != e.TaskID.V {
				return conform.Mismatch(fmt.Sprintf("record %d: payload.taskId differs from the envelope taskId", l.r.Seq), e.TaskID.V, h.TaskID.V).At(l.r.Seq)
			}
			if e.TaskID.V == task && e.FromAgent.V != "agent-under-test" {
				return conform.Mismatch(fmt.Sprintf("record %d is sent as another agent", l.r.Seq), "fromAgent \"agent-under-test\" (AOF_AGENT_ID)", e.FromAgent.V).At(l.r.Seq)
			}
		}
		if len(aofLines(s)) == 0 {
			return vacuous()
		}
		return conform.Passf("envelopes name the leased task and its holder")
	},
}
