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

// orchmsgMemo is what the orchmsg checks decode once per session
// (sessionMemo): each record's message and each attempt's input.
type orchmsgMemo struct {
	msgs   perRecord[*spec.Message]
	inputs perAttempt[*spec.Message]
}

// orchmsgDecode is a message as lint/spec/orchmsg decodes it: a message with no
// member when it is none.
func orchmsgDecode(b []byte) *spec.Message {
	m, err := spec.Decode(b)
	if err != nil {
		return &spec.Message{}
	}
	return m
}

// orchmsgMsg is the message of record r of s (orchmsgDecode), decoded once per
// session: read only.
func orchmsgMsg(s *conform.Session, r *conform.Record) *spec.Message {
	return memoOf(s).orchmsg.msgs.get(s, r, func(r *conform.Record) *spec.Message { return orchmsgDecode(r.Msg) })
}

// orchmsgInput is the message attempt a of s was given (orchmsgDecode), decoded
// once per session: read only.
func orchmsgInput(s *conform.Session, a *conform.Attempt) *spec.Message {
	return memoOf(s).orchmsg.inputs.get(s, a, func(a *conform.Attempt) *spec.Message { return orchmsgDecode(a.Input) })
}

// orchmsgPayload is the payload of a record's message (no member when it has
// none, or one that is no object).
func orchmsgPayload(s *conform.Session, r *conform.Record) *spec.Payload {
	return &orchmsgMsg(s, r).Payload.V
}

// orchmsgTaskID is the task the harness assigned.
func orchmsgTaskID(s *conform.Session) string {
	if a := s.Attempt(1); a != nil {
		return orchmsgInput(s, a).Payload.V.TaskID.V
	}
	return ""
}

// orchmsgTaskOver reports whether an agent message says task is over (progress 1,
// or an unrecoverable event:error: lint/spec/orchmsg's Message.Completes).
func orchmsgTaskOver(s *conform.Session, r *conform.Record, task string) bool {
	m := orchmsgMsg(s, r)
	return m.Payload.V.TaskID.V == task && m.Completes()
}

// orchmsgSubmitted maps each request:submit-task (by record seq) to the id of the
// task the orchestrator's response:success created.
func orchmsgSubmitted(s *conform.Session) map[int]string {
	reqs := map[string]int{}
	for _, r := range s.ByKey(0, "request:submit-task") {
		if id, ok := orchmsgMsg(s, r).ID.Get(); ok {
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
		m := orchmsgMsg(s, r)
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
