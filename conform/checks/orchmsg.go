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

// orchmsgTaskID is the task the harness assigned.
func orchmsgTaskID(s *conform.Session) string {
	if a := s.Attempt(1); a != nil {
		return str(decode(a.Input), "payload", "taskId")
	}
	return ""
}

// orchmsgTaskOver reports whether an agent message says task is over (progress 1,
// or an unrecoverable event:error: lint/spec/orchmsg.CompletesTask).
func orchmsgTaskOver(r *conform.Record, task string) bool {
	m := decode(r.Msg)
	if str(m, "payload", "taskId") != task {
		return false
	}
	prog, hasProg := num(m, "payload", "progress")
	rec, hasRec := field(m, "payload", "recoverable").(bool)
	return spec.CompletesTask(r.Key, prog, hasProg, rec, hasRec)
}

// orchmsgSubmitted maps each request:submit-task (by record seq) to the id of the
// task the orchestrator's response:success created.
func orchmsgSubmitted(s *conform.Session) map[int]string {
	reqs := map[string]int{}
	for _, r := range s.ByKey(0, "request:submit-task") {
		if id, ok := field(decode(r.Msg), "id").(string); ok {
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
		m := decode(r.Msg)
		if str(m, "type") != "response:success" {
			continue
		}
		if seq, ok := reqs[str(m, "correlationId")]; ok {
			if id := str(m, "payload", "task", "id"); id != "" {
				ids[seq] = id
			}
		}
	}
	return ids
}
