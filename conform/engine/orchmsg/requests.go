package orchmsg

import (
	"fmt"
	"sort"

	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// handleRequest answers one of the five requests (Supported Requests).
func (e *engine) handleRequest(id, typ string, m map[string]any) {
	p, _ := m["payload"].(map[string]any)
	if _, present := m["payload"]; present && p == nil {
		e.fail(id, "INVALID_REQUEST", "payload must be an object", nil)
		return
	}
	if p == nil {
		p = map[string]any{}
	}
	switch typ {
	case "request:query-agents":
		e.queryAgents(id, typ, p)
	case "request:query-tasks":
		e.queryTasks(id, typ, p)
	case "request:submit-task":
		e.submitTask(id, typ, p)
	case "request:get-task":
		e.getTask(id, typ, p)
	case "request:ask-user":
		e.askUser(id, p)
	default:
		e.fail(id, "INVALID_MESSAGE_TYPE", fmt.Sprintf("Unknown message type %q", typ), map[string]any{"type": typ})
	}
}

func (e *engine) invalid(id, typ, msg string, details map[string]any) {
	e.fail(id, "INVALID_REQUEST", msg, details)
}

// registry is the agent itself and its peers, sorted by id.
func (e *engine) registry() []AgentInfo {
	self := AgentInfo{ID: AgentID, Role: e.world.Role, Status: "idle", Capabilities: e.world.Capabilities}
	if self.Capabilities == nil {
		self.Capabilities = []string{}
	}
	if e.taskState == "incomplete" {
		self.Status = "busy"
		t := e.taskID
		self.CurrentTask = &t
	}
	out := append([]AgentInfo{self}, e.world.Agents...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (e *engine) queryAgents(id, typ string, p map[string]any) {
	role, hasRole := p["role"]
	if hasRole {
		r, ok := role.(string)
		if !ok || !spec.IsRole(r) {
			e.invalid(id, typ, "Invalid role specified", map[string]any{"role": role})
			return
		}
	}
	status, _ := p["status"].(string)
	var caps []string
	if cs, ok := p["capabilities"].([]any); ok {
		for _, c := range cs {
			if s, ok := c.(string); ok {
				caps = append(caps, s)
			}
		}
	}
	agents := []AgentInfo{}
	for _, a := range e.registry() {
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
	e.success(id, map[string]any{"agents": agents})
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
func (e *engine) visible(t *Task) bool {
	return t.AssignedTo == AgentID || t.SubmittedBy == AgentID
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

func (e *engine) queryTasks(id, typ string, p map[string]any) {
	status, _ := p["status"].(string)
	role, _ := p["requiredRole"].(string)
	limit := 0
	if l, ok := p["limit"]; ok {
		f, isNum := l.(float64)
		if !isNum || f < 1 || f != float64(int(f)) {
			e.invalid(id, typ, "limit must be a positive integer", map[string]any{"limit": l})
			return
		}
		limit = int(f)
	}
	tasks := []map[string]any{}
	for _, t := range e.sortedTasks() {
		if !e.visible(t) || (status != "" && t.Status != status) || (role != "" && t.RequiredRole != role) {
			continue
		}
		if limit > 0 && len(tasks) == limit {
			break
		}
		tasks = append(tasks, summary(t))
	}
	e.success(id, map[string]any{"tasks": tasks})
}

func (e *engine) getTask(id, typ string, p map[string]any) {
	taskID, ok := p["taskId"].(string)
	if !ok || taskID == "" {
		e.invalid(id, typ, "payload.taskId is required", nil)
		return
	}
	t := e.tasks[taskID]
	if t == nil {
		e.fail(id, "NOT_FOUND", fmt.Sprintf("Task %s not found", taskID), map[string]any{"taskId": taskID})
		return
	}
	if !e.visible(t) {
		e.fail(id, "UNAUTHORIZED", "Agents can only query their own tasks", map[string]any{"taskId": taskID})
		return
	}
	e.success(id, map[string]any{"task": t.view()})
}

func (e *engine) submitTask(id, typ string, p map[string]any) {
	name, _ := p["name"].(string)
	if name == "" {
		e.invalid(id, typ, "payload.name is required", nil)
		return
	}
	t := &Task{Name: name, Status: "queued", SubmittedBy: AgentID, Dependencies: []string{}}
	t.Type, _ = p["type"].(string)
	t.Description, _ = p["description"].(string)
	t.RequiredRole, _ = p["requiredRole"].(string)
	if t.RequiredRole != "" && !spec.IsRole(t.RequiredRole) {
		e.invalid(id, typ, "Invalid requiredRole specified", map[string]any{"requiredRole": t.RequiredRole})
		return
	}
	if pl, ok := p["payload"].(map[string]any); ok {
		t.Payload = pl
	}
	if pr, ok := p["priority"]; ok {
		f, isNum := pr.(float64)
		if !isNum || f != float64(int(f)) || f < 1 || f > 5 {
			e.invalid(id, typ, "priority must be an integer from 1 to 5", map[string]any{"priority": pr})
			return
		}
		t.Priority = int(f)
	}
	if cs, ok := p["requiredCapabilities"].([]any); ok {
		for _, c := range cs {
			if s, ok := c.(string); ok {
				t.RequiredCapabilities = append(t.RequiredCapabilities, s)
			}
		}
	}
	// The submitting agent's own task is the parent: a submitted task sits one
	// level below the deepest of its dependencies and of that task.
	var deps []int
	if ds, ok := p["dependencies"].([]any); ok {
		for _, d := range ds {
			s, _ := d.(string)
			dep := e.tasks[s]
			if dep == nil {
				e.fail(id, "NOT_FOUND", fmt.Sprintf("Dependency %q not found", s), map[string]any{"dependency": d})
				return
			}
			t.Dependencies = append(t.Dependencies, s)
			deps = append(deps, dep.depth)
		}
	}
	depth := spec.SubmittedDepth(e.tasks[e.taskID].depth, deps...)
	if depth > spec.MaxDelegationDepth {
		e.fail(id, "UNAUTHORIZED", fmt.Sprintf("Delegation depth %d exceeds %d", depth, spec.MaxDelegationDepth), map[string]any{"depth": depth, "maxDepth": spec.MaxDelegationDepth})
		return
	}
	t.depth = depth
	e.submitted++
	t.ID = fmt.Sprintf("task-sub-%03d", e.submitted)
	e.tasks[t.ID] = t
	e.success(id, map[string]any{"task": t.view()})
}
