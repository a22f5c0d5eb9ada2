package checks

import (
	"github.com/aopkit/aopkit/conform"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// orchmsgMsgs returns the agent's JSON messages that have a type field.
func orchmsgMsgs(s *conform.Session) []*conform.Record {
	var out []*conform.Record
	for _, r := range s.AgentMsgs(0) {
		if r.Key != "" {
			out = append(out, r)
		}
	}
	return out
}

// orchmsgMsg is the message of a record (its Msg, or an attempt's Input) as
// lint/spec/orchmsg decodes it: a message with no member when it is none.
func orchmsgMsg(b []byte) *spec.Message {
	m, err := spec.Decode(b)
	if err != nil {
		return &spec.Message{}
	}
	return m
}

// orchmsgPayload is the payload of a record's message (no member when it has
// none, or one that is no object).
func orchmsgPayload(r *conform.Record) *spec.Payload { return &orchmsgMsg(r.Msg).Payload.V }

// orchmsgTaskID is the task the harness assigned.
func orchmsgTaskID(s *conform.Session) string {
	if a := s.Attempt(1); a != nil {
		return orchmsgMsg(a.Input).Payload.V.TaskID.V
	}
	return ""
}

// orchmsgTaskOver reports whether an agent message says task is over (progress 1,
// or an unrecoverable event:error: lint/spec/orchmsg's Message.Completes).
func orchmsgTaskOver(r *conform.Record, task string) bool {
	m := orchmsgMsg(r.Msg)
	return m.Payload.V.TaskID.V == task && m.Completes()
}

// orchmsgSubmitted maps each request:submit-task (by record seq) to the id of the
// task the orchestrator's response:success created.
func orchmsgSubmitted(s *conform.Session) map[int]string {
	reqs := map[string]int{}
	for _, r := range s.ByKey(0, "request:submit-task") {
		if id, ok := orchmsgMsg(r.Msg).ID.Get(); ok {
			if _, dup := reqs[id]; !dup {
				reqs[id] = r.Seq
			}
		}
	}
	ids := map[int]string{}
	for i := range s.Records {
		r := &s.Records[i]
		if r.From != conform.ActorOrchestrator || r.Msg == nil {
			continue
		}
		m := orchmsgMsg(r.Msg)
		if m.Type.V != "response:success" {
			continue
		}
		if seq, ok := reqs[m.CorrelationID.V]; ok {
			if id := m.Payload.V.Task.V.ID.V; id != "" {
				ids[seq] = id
			}
		}
	}
	return ids
}
