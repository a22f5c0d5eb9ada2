package checks

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

var orchmsgFormatBaseFields = &conform.Check{
	ID:          "orchmsg/format/base-fields",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "orchmsg §Base Message Structure",
	Requirement: "interface BaseMessage { type: MessageType; id: string; timestamp: string (ISO 8601); agentId?: string } — agentId, when given, is the agent's own (ORCHMSG_AGENT_ID).",
	Lint:        []string{"ORCH-BASE-001", "ORCH-BASE-002", "ORCH-SEQ-010"},
	Bad:         `{"type":"event:log","timestamp":"22/11/2026 10:00","payload":{...}} (no id)`,
	Good:        `{"type":"event:log","id":"evt-1b4e…","timestamp":"2026-11-22T10:00:00.000Z","payload":{...}}`,
	Run: func(s *conform.Session) conform.Outcome {
		msgs := orchmsgMsgs(s)
		if len(msgs) == 0 {
			return vacuous()
		}
		for _, r := range msgs {
			m := orchmsgMsg(s, r)
			id, idOK := m.ID.Get()
			ts := m.Timestamp.V
			if aid, ok := m.AgentID.Get(); ok && aid != "agent-under-test" {
				return conform.Mismatch(fmt.Sprintf("record %d carries another agent's agentId", r.Seq), "agentId \"agent-under-test\" (ORCHMSG_AGENT_ID) or none", aid).At(r.Seq)
			}
			if _, _, tsOK := spec.ParseTime(ts); !idOK || id == "" || !tsOK {
				return conform.Mismatch(fmt.Sprintf("record %d lacks a string id or an ISO 8601 timestamp", r.Seq), map[string]string{"id": "a non-empty string", "timestamp": "ISO 8601"}, map[string]any{"id": m.ID.Any(), "timestamp": m.Timestamp.Any()}).At(r.Seq)
			}
		}
		return conform.Passf("%d messages with type, id and timestamp", len(msgs))
	},
}

var orchmsgFormatUUIDIDs = &conform.Check{
	ID:          "orchmsg/format/uuid-ids",
	Family:      "happy-path",
	Tier:        conform.Full,
	Level:       conform.SHOULD,
	Spec:        "orchmsg §Base Message Structure; §Correlation",
	Requirement: "id: string; // UUID for correlation — Each request gets unique UUID: an id is a UUID, bare (randomUUID()) or with a short prefix (\"req-123e4567-…\"), by aoplint's own test (ORCH-BASE-003, a warning).",
	Lint:        []string{"ORCH-BASE-003"},
	Bad:         `{"type":"event:log","id":"evt-1",...} or "id":"request-1796596858957" (a counter, a clock)`,
	Good:        `{"type":"event:log","id":"evt-1b4e28ba-2fa1-11d2-883f-0016d3cca427",...} (randomUUID(), bare or with a short prefix)`,
	Run: func(s *conform.Session) conform.Outcome {
		msgs := orchmsgMsgs(s)
		if len(msgs) == 0 {
			return conform.NotTestedf("the agent sent no protocol message")
		}
		for _, r := range msgs {
			// A missing or empty id is format/base-fields' (a MUST).
			if id, ok := orchmsgMsg(s, r).ID.Get(); ok && id != "" && !spec.IsID(id) {
				return conform.Mismatch(fmt.Sprintf("record %d's id is not a UUID", r.Seq), "a UUID, bare or with a short prefix (\"req-123e4567-e89b-12d3-a456-426614174000\")", id).At(r.Seq)
			}
		}
		return conform.Passf("%d messages, every id a UUID", len(msgs))
	},
}

var orchmsgFormatMessageType = &conform.Check{
	ID:          "orchmsg/format/message-type",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "orchmsg §Message Types",
	Requirement: "Agent → Orchestrator messages are one of the request:* and event:* types the protocol defines.",
	Lint:        []string{"ORCH-TYPE-", "ORCH-SEQ-006"},
	Bad:         `{"type":"request:delete-task",...} or a response:success from the agent`,
	Good:        `only request:* and event:* types of the protocol`,
	Run: func(s *conform.Session) conform.Outcome {
		msgs := orchmsgMsgs(s)
		if len(msgs) == 0 {
			return vacuous()
		}
		for _, r := range msgs {
			if !spec.IsAgentType(r.Key) {
				return conform.Mismatch(fmt.Sprintf("record %d has type %q", r.Seq, r.Key), "request:query-agents|query-tasks|submit-task|get-task|ask-user or event:progress|log|error|question", r.Key).At(r.Seq)
			}
		}
		return conform.Passf("every message type is known")
	},
}

var orchmsgFormatJSON = &conform.Check{
	ID:          "orchmsg/format/json",
	Family:      "output-hygiene",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "orchmsg §Parsing Strategy",
	Requirement: "If valid JSON with type field → route to MessageHandler: a stdout line that starts a JSON object is a complete JSON message with a type.",
	Lint:        []string{"GEN-JSON-001"},
	Bad:         `{"status":"busy"} or {"type":"event:progress",…,}`,
	Good:        `complete JSON objects with a type; free text on stderr`,
	Run: func(s *conform.Session) conform.Outcome {
		n := 0
		var cut *conform.Record
		for _, r := range s.AgentLines(0, "stdout") {
			t := strings.TrimSpace(recordText(r))
			if !strings.HasPrefix(t, "{") {
				continue
			}
			n++
			if r.Msg == nil || r.Key == "" {
				if r.Truncated {
					// Cut at the line limit: no longer JSON because it was
					// too long, orchmsg/limit/message-size's failure.
					if cut == nil {
						cut = r
					}
					continue
				}
				return conform.Mismatch(fmt.Sprintf("record %d starts a JSON object but is not a typed JSON message", r.Seq), "a complete JSON object with a type", conform.Clip(t, 200)).At(r.Seq)
			}
		}
		if cut != nil {
			return conform.NotJudgedf("orchmsg/limit/message-size", "record %d starts a JSON object but was cut at 1 MiB", cut.Seq)
		}
		if n == 0 {
			return vacuous()
		}
		return conform.Passf("%d JSON messages, all typed", n)
	},
}
