package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aopkit/aopkit/conform/harness"

	"github.com/aopkit/aopkit/conform"
)

// OrchmsgAgentID is the agent id the harness announces in ORCHMSG_AGENT_ID.
const OrchmsgAgentID = "agent-under-test"

// OrchmsgKey names an orchmsg message by its type.
func OrchmsgKey(r *conform.Record) string {
	m := r.Obj()
	if m == nil {
		return ""
	}
	t, _ := m["type"].(string)
	return t
}

type orchmsgIDs struct{ n atomic.Int64 }

// next returns prefix-<UUID v4 shape>, unique within the run.
func (o *orchmsgIDs) next(prefix string) string {
	n := o.n.Add(1)
	t := uint64(time.Now().UnixNano())
	return fmt.Sprintf("%s-%08x-%04x-4%03x-8%03x-%012x", prefix, uint32(t>>32), uint16(t>>16), uint16(t)&0xfff, n>>48&0xfff, n&0xffffffffffff)
}

func nowISO() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// driveOrchmsg: notify:task-assigned first; requests are answered (unless withheld
// or rejected by the scenario); steps send notify:task-cancelled and notify:shutdown
// (gracePeriod in ms, after which the agent is stopped).
func driveOrchmsg(h *harness.H) error {
	var payload map[string]any
	if err := json.Unmarshal(h.Expand(h.Scenario().Task), &payload); err != nil {
		return harness.Errorf("scenario %s: task: %v", h.Scenario().ID, err)
	}
	taskID, _ := payload["taskId"].(string)
	// "task" is the harness's side of the scenario: what request:get-task answers
	// for the assigned task. It is not part of the notification.
	taskObj, _ := payload["task"].(map[string]any)
	delete(payload, "task")
	if taskObj == nil {
		taskObj = map[string]any{"id": taskID, "name": "Assigned task", "status": "running"}
	}
	ids := &orchmsgIDs{}
	notify := func(typ string, p map[string]any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"type": typ, "id": ids.next("ntf"), "timestamp": nowISO(), "agentId": OrchmsgAgentID, "payload": p})
		return b
	}
	assigned := notify("notify:task-assigned", payload)
	a, err := h.Launch(assigned, "ORCHMSG_AGENT_ID="+OrchmsgAgentID)
	if err != nil {
		return err
	}
	a.Send(assigned)
	withheld := map[string]bool{}
	for _, t := range h.Scenario().Withhold {
		withheld[t] = true
	}
	rejected := map[string]bool{}
	for _, t := range h.Scenario().Reject {
		rejected[t] = true
	}
	submitted := 0
	return a.Run(harness.Handler{
		Key: OrchmsgKey,
		Done: func(r *conform.Record) bool {
			m := r.Obj()
			p, _ := m["payload"].(map[string]any)
			if p == nil || p["taskId"] != taskID {
				return false
			}
			v, _ := p["progress"].(float64)
			return r.Key == "event:error" || (r.Key == "event:progress" && v >= 1)
		},
		OnLine: func(a *harness.Agent, r conform.Record) {
			if r.Msg == nil {
				return
			}
			m := r.Obj()
			typ, _ := m["type"].(string)
			if !strings.HasPrefix(typ, "request:") {
				return
			}
			id := m["id"]
			if withheld[typ] {
				h.Event(a.N(), "withheld", map[string]any{"request_seq": r.Seq, "type": typ})
				return
			}
			resp := map[string]any{"id": ids.next("res"), "correlationId": id, "timestamp": nowISO()}
			if _, ok := id.(string); !ok || rejected[typ] {
				code, msg := "INVALID_REQUEST", "request id must be a string"
				if rejected[typ] {
					code, msg = "UNAUTHORIZED", "the scenario rejects "+typ
				}
				resp["type"] = "response:error"
				resp["error"] = map[string]any{"code": code, "message": msg}
			} else if p, _ := m["payload"].(map[string]any); typ == "request:get-task" && (p == nil || p["taskId"] == nil) {
				resp["type"] = "response:error"
				resp["error"] = map[string]any{"code": "INVALID_REQUEST", "message": "payload.taskId is required"}
			} else if typ == "request:get-task" && !ownTask(m, taskID, submitted) {
				resp["type"] = "response:error"
				resp["error"] = map[string]any{"code": "UNAUTHORIZED", "message": "agents can only query their own tasks"}
			} else if p, ok := orchmsgAnswer(typ, m, taskID, taskObj, &submitted); ok {
				resp["type"] = "response:success"
				resp["payload"] = p
			} else {
				resp["type"] = "response:error"
				resp["error"] = map[string]any{"code": "INVALID_MESSAGE_TYPE", "message": "unknown request type " + typ}
			}
			b, _ := json.Marshal(resp)
			a.Send(b)
		},
		Act: func(a *harness.Agent, st conform.Step) error {
			switch st.Do {
			case "cancel":
				if !a.Attempt().CancelledAt.IsZero() {
					return nil // one cancellation (a fallback step after the first)
				}
				a.Attempt().CancelledAt = time.Now()
				a.Send(notify("notify:task-cancelled", map[string]any{"taskId": taskID, "reason": orDefault(st.Reason, "Cancelled by the conformance harness")}))
			case "shutdown":
				if !a.Attempt().ShutdownAt.IsZero() {
					return nil // one shutdown per attempt (a fallback step after the first)
				}
				g := st.Grace.D(h.ScaleFactor())
				if g <= 0 {
					g = h.Grace()
				}
				a.Attempt().ShutdownAt = time.Now()
				a.Attempt().ShutdownFor = g
				a.Send(notify("notify:shutdown", map[string]any{"gracePeriod": g.Milliseconds(), "reason": orDefault(st.Reason, "Orchestrator stopping")}))
				// After the grace period the orchestrator stops the agent: SIGTERM,
				// then SIGKILL.
				a.H().Fact("orchmsg.shutdown_grace_ms", g.Milliseconds())
				a.TerminateAt(time.Now().Add(g))
			default:
				return harness.Errorf("scenario %s: step %q does not apply to orchmsg", h.Scenario().ID, st.Do)
			}
			return nil
		},
		Monitor: func(a *harness.Agent, now time.Time) time.Time {
			if t := a.TerminateDue(); !t.IsZero() {
				if !now.Before(t) {
					a.Terminate("shutdown grace period over")
					return time.Time{}
				}
				return t
			}
			return time.Time{}
		},
	})
}

// orchmsgAnswer is the canned success payload of each request type.
func orchmsgAnswer(typ string, req map[string]any, taskID string, taskObj map[string]any, submitted *int) (map[string]any, bool) {
	p, _ := req["payload"].(map[string]any)
	switch typ {
	case "request:query-agents":
		return map[string]any{"agents": []any{
			map[string]any{"id": OrchmsgAgentID, "role": "worker", "status": "busy", "capabilities": []any{"go"}, "currentTask": taskID},
			map[string]any{"id": "agent-2", "role": "reviewer", "status": "idle", "capabilities": []any{"review"}, "currentTask": nil},
		}}, true
	case "request:query-tasks":
		return map[string]any{"tasks": []any{
			map[string]any{"id": taskID, "name": "Assigned task", "status": "running", "requiredRole": "worker", "dependencies": []any{}},
		}}, true
	case "request:submit-task":
		*submitted++
		name, _ := p["name"].(string)
		return map[string]any{"task": map[string]any{"id": fmt.Sprintf("task-sub-%03d", *submitted), "name": name, "status": "queued"}}, true
	case "request:get-task":
		id, _ := p["taskId"].(string)
		if id == taskID {
			return map[string]any{"task": taskObj}, true
		}
		return map[string]any{"task": map[string]any{"id": id, "name": "Submitted task", "status": "queued"}}, true
	case "request:ask-user":
		answer := "yes"
		if opts, ok := p["options"].([]any); ok && len(opts) > 0 {
			if o, ok := opts[0].(map[string]any); ok {
				if v, ok := o["value"].(string); ok {
					answer = v
				}
			}
		}
		return map[string]any{"answer": answer, "metadata": map[string]any{"answeredAt": nowISO()}}, true
	}
	return nil, false
}

// ownTask reports whether a get-task request names the assigned task or one the
// agent submitted ("Authorization: Agents can only query their own tasks").
func ownTask(req map[string]any, taskID string, submitted int) bool {
	p, _ := req["payload"].(map[string]any)
	id, _ := p["taskId"].(string)
	if id == "" || id == taskID {
		return true
	}
	for i := 1; i <= submitted; i++ {
		if id == fmt.Sprintf("task-sub-%03d", i) {
			return true
		}
	}
	return false
}
