package orchmsg

import (
	"fmt"
	"sort"

	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// handleRequest answers one of the five requests (Supported Requests), line
// being the request as the agent wrote it. Whether the engine refuses it is
// aoplint's decision (Refusal: an error of lint/orchmsg's rules of one message
// refuses it, a warning does not, bar Exceptions); the handlers only serve a
// request aoplint finds no error in, and word nothing of their own.
func (m *member) handleRequest(id, typ string, msg *spec.Message, line []byte) {
	code, text, details := Refusal(typ, line)
	switch {
	case code == "INVALID_MESSAGE_TYPE" && m.e.fault == FaultUnknownTypeInvalidRequest:
		m.invalid(id, "Unsupported request "+typ, nil)
		return
	case code != "":
		m.fail(id, code, text, details)
		return
	}
	p := &msg.Payload.V // no member when absent
	switch typ {
	case "request:query-agents":
		m.queryAgents(id, p)
	case "request:query-tasks":
		m.queryTasks(id, p)
	case "request:submit-task":
		m.submitTask(id, p)
	case "request:get-task":
		m.getTask(id, p)
	case "request:ask-user":
		m.askUser(id, p)
	default: // ORCH-TYPE-001 refuses every other type: not reached
		m.fail(id, "INVALID_MESSAGE_TYPE", fmt.Sprintf("Unknown message type %q", typ), map[string]any{"type": typ})
	}
}

func (m *member) invalid(id, msg string, details map[string]any) {
	m.fail(id, "INVALID_REQUEST", msg, details)
}

// registry is the agents the engine drives (busy with a task, or idle) and the
// world's other agents, sorted by id.
func (e *engine) registry() []AgentInfo {
	var out []AgentInfo
	for _, m := range e.members {
		a := AgentInfo{ID: m.id, Role: m.role, Status: "idle", Capabilities: m.caps}
		if a.Capabilities == nil {
			a.Capabilities = []string{}
		}
		if m.gone {
			a.Status = "offline"
		} else if m.taskState == "incomplete" {
			a.Status = "busy"
			t := m.taskID
			a.CurrentTask = &t
		}
		out = append(out, a)
	}
	out = append(out, e.world.Agents...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (m *member) queryAgents(id string, p *spec.Payload) {
	role, hasRole := p.Role.V, p.Role.Has()
	status := p.Status.V
	var caps []string
	if cs, ok := p.Capabilities.Get(); ok {
		for _, c := range cs {
			if s, ok := c.(string); ok {
				caps = append(caps, s)
			}
		}
	}
	if m.e.fault == FaultIgnoreQueryFilters {
		hasRole, status, caps = false, "", nil
	}
	agents := []AgentInfo{}
	for _, a := range m.e.registry() {
		if hasRole && a.Role != role {
			continue
		}
		if status != "" && a.Status != status {
			continue
		}
		if !hasAll(a.Capabilities, caps) {
			continue
		}
		if a.Capabilities == nil {
			a.Capabilities = []string{}
		}
		agents = append(agents, a)
	}
	m.success(id, map[string]any{"agents": agents})
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// visible: agents can only query their own tasks (Security Considerations): the
// ones assigned to them and the ones they submitted.
func (m *member) visible(t *Task) bool {
	return t.AssignedTo == m.id || t.SubmittedBy == m.id
}

// depth is the delegation depth of the member's current task (0: none, or the
// scenario's).
func (m *member) depth() int {
	if t := m.e.tasks[m.taskID]; t != nil {
		return t.depth
	}
	return 0
}

func (e *engine) sortedTasks() []*Task {
	out := make([]*Task, 0, len(e.tasks))
	for _, t := range e.tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func summary(t *Task) map[string]any {
	deps := t.Dependencies
	if deps == nil {
		deps = []string{}
	}
	return map[string]any{"id": t.ID, "name": t.Name, "status": t.Status, "requiredRole": t.RequiredRole, "dependencies": deps}
}

func (m *member) queryTasks(id string, p *spec.Payload) {
	status, role := p.Status.V, p.RequiredRole.V
	limit := 0
	if f, ok := p.Limit.Get(); ok && f < float64(len(m.e.tasks)) {
		limit = int(f) // a positive integer (ORCH-SCHEMA-001); none above the store's size
	}
	tasks := []map[string]any{}
	ignore := m.e.fault == FaultIgnoreQueryFilters
	if ignore {
		status, role = "", ""
	}
	for _, t := range m.e.sortedTasks() {
		if (!m.visible(t) && !ignore) || (status != "" && t.Status != status) || (role != "" && t.RequiredRole != role) {
			continue
		}
		if limit > 0 && len(tasks) == limit {
			break
		}
		tasks = append(tasks, summary(t))
	}
	m.success(id, map[string]any{"tasks": tasks})
}

func (m *member) getTask(id string, p *spec.Payload) {
	e := m.e
	taskID := p.TaskID.V // a non-empty string (ORCH-SCHEMA-001)
	t := e.tasks[taskID]
	if (t == nil || !m.visible(t)) && e.fault == FaultInternalErrorCodes {
		m.fail(id, "INTERNAL_ERROR", "Task not found: "+taskID, nil)
		return
	}
	if t == nil {
		m.fail(id, "NOT_FOUND", fmt.Sprintf("Task %s not found", taskID), map[string]any{"taskId": taskID})
		return
	}
	if !m.visible(t) {
		m.fail(id, "UNAUTHORIZED", "Agents can only query their own tasks", map[string]any{"taskId": taskID})
		return
	}
	m.success(id, map[string]any{"task": t.view()})
}

func (m *member) submitTask(id string, p *spec.Payload) {
	e := m.e
	// type and name are non-empty strings, requiredRole a role, priority an
	// integer (ORCH-SCHEMA-001, ORCH-PAYLOAD-002, ORCH-PAYLOAD-003).
	t := &Task{Name: p.Name.V, Status: "queued", SubmittedBy: m.id, Dependencies: []string{}}
	t.Type, t.Description, t.RequiredRole = p.Type.V, p.Description.V, p.RequiredRole.V
	if pl, ok := p.Payload.Get(); ok {
		t.Payload = pl
	}
	if f, ok := p.Priority.Get(); ok {
		// Outside 1..5 is ORCH-PAYLOAD-002's warning, not a refusal: the task
		// is ranked at the nearest priority the orchestrator ranks (9 → 5), so
		// what it answers stays within 1..5.
		f = min(max(f, 1), 5)
		t.Priority = &f
	}
	if cs, ok := p.RequiredCapabilities.Get(); ok {
		for _, c := range cs {
			if s, ok := c.(string); ok {
				t.RequiredCapabilities = append(t.RequiredCapabilities, s)
			}
		}
	}
	// The submitting agent's own task is the parent: a submitted task sits one
	// level below the deepest of its dependencies and of that task.
	var deps []int
	if ds, ok := p.Dependencies.Get(); ok {
		for _, d := range ds {
			s, _ := d.(string)
			dep := e.tasks[s]
			if dep == nil {
				m.fail(id, "NOT_FOUND", fmt.Sprintf("Dependency %q not found", s), map[string]any{"dependency": d})
				return
			}
			t.Dependencies = append(t.Dependencies, s)
			deps = append(deps, dep.depth)
		}
	}
	depth := spec.SubmittedDepth(m.depth(), deps...)
	if depth > spec.MaxDelegationDepth {
		m.fail(id, "UNAUTHORIZED", fmt.Sprintf("Delegation depth %d exceeds %d", depth, spec.MaxDelegationDepth), map[string]any{"depth": depth, "maxDepth": spec.MaxDelegationDepth})
		return
	}
	t.depth = depth
	e.submitted++
	t.ID = fmt.Sprintf("task-sub-%03d", e.submitted)
	e.tasks[t.ID] = t
	m.success(id, map[string]any{"task": t.view()})
	if e.team() {
		e.queue = append(e.queue, t.ID)
		e.settle()
	}
}
