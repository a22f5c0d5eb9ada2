// Package taskfile reads and writes an AOF task file, tasks/<status>/<id>.md:
// YAML front matter and a Markdown body, in the guide's minimal form or the one
// d0labs/aof's own store reads. aof-1 defines no task file format; this is the
// one home of both forms, for the reference engine (conform/engine/aof), which
// seeds and moves task files, and the reference agent (mockagent/aof), which
// creates a delegated child.
package taskfile

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// ValidTaskID reports whether id is a TaskId: the spec's form or the upstream store's.
func ValidTaskID(id string) bool { return spec.ValidTaskID(id) || spec.UpstreamTaskID(id) }

// Lease is who holds a task while it is in progress.
type Lease struct {
	Agent      string
	AcquiredAt string
	ExpiresAt  string
}

// Form is the layout of a task file's front matter. aof-1 defines no task file
// format; the engine writes FormUpstream by default and reads both.
type Form int

const (
	// FormUpstream is d0labs/aof's TaskFrontmatter (src/schemas/task.ts at
	// 2700399): schemaVersion 1, project, priority, routing.agent,
	// lastTransitionAt, createdBy, dependsOn besides the guide's keys. Its store
	// lists a task file only when that schema accepts it. The engine writes the
	// guide's assignee too (= routing.agent): AOF's schema strips unknown keys,
	// and schedulers written from the guide read it.
	FormUpstream Form = iota
	// FormMinimal is what aof-1's guide shows of a task: id, title, status,
	// assignee, createdAt, updatedAt, lease, metadata.
	FormMinimal
)

// CreatedBy is the createdBy of the task files the engine seeds (FormUpstream).
const CreatedBy = "aopconform"

// Task is one task file: tasks/<status>/<id>.md, YAML frontmatter and a Markdown body.
type Task struct {
	// Form is how the file was written (ParseTask) or is to be written (Marshal).
	Form      Form
	ID        string
	Title     string
	Status    string
	Assignee  string // assignee; upstream routing.agent (else routing.role, routing.team)
	CreatedAt string
	UpdatedAt string
	// Project, Priority, CreatedBy and LastTransitionAt are FormUpstream's
	// (Store.Create fills them in).
	Project, Priority, CreatedBy, LastTransitionAt string
	Lease                                          *Lease
	// Metadata holds delegationDepth (int), reviewRequired (bool), parentTaskId and
	// anything else; values are string, int64 or bool (a list or a mapping an
	// upstream file holds stays as the YAML reader gives it).
	Metadata map[string]any
	Body     string
}

// DelegationDepth is metadata.delegationDepth, 0 when absent or not a number
// (aof-1 §Delegation Depth Guard).
func (t *Task) DelegationDepth() int {
	if n, ok := t.Metadata["delegationDepth"].(int64); ok {
		return int(n)
	}
	return 0
}

// ReviewRequired is metadata.reviewRequired, true unless it is exactly false.
func (t *Task) ReviewRequired() bool {
	b, ok := t.Metadata["reviewRequired"].(bool)
	return !ok || b
}

// SetMeta sets one metadata value.
func (t *Task) SetMeta(key string, v any) {
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	switch n := v.(type) {
	case int:
		v = int64(n)
	}
	t.Metadata[key] = v
}

// Marshal renders the task file in its Form (FormUpstream: the keys in the order
// of d0labs/aof's schema).
func (t *Task) Marshal() []byte {
	var b strings.Builder
	b.WriteString("---\n")
	kv := func(indent, k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s%s: %s\n", indent, k, yamlScalar(v))
		}
	}
	up := t.Form == FormUpstream
	if up {
		b.WriteString("schemaVersion: 1\n")
	}
	kv("", "id", t.ID)
	if up {
		kv("", "project", t.Project)
	}
	kv("", "title", t.Title)
	kv("", "status", t.Status)
	if up {
		kv("", "priority", t.Priority)
		b.WriteString("routing:\n")
		kv("  ", "agent", t.Assignee)
		b.WriteString("  tags: []\n")
	}
	kv("", "assignee", t.Assignee)
	lease := func() {
		if t.Lease != nil {
			b.WriteString("lease:\n")
			kv("  ", "agent", t.Lease.Agent)
			kv("  ", "acquiredAt", t.Lease.AcquiredAt)
			kv("  ", "expiresAt", t.Lease.ExpiresAt)
		}
	}
	if up {
		lease()
	}
	kv("", "createdAt", t.CreatedAt)
	kv("", "updatedAt", t.UpdatedAt)
	if !up {
		lease()
	}
	if up {
		kv("", "lastTransitionAt", t.LastTransitionAt)
		kv("", "createdBy", t.CreatedBy)
		b.WriteString("dependsOn: []\n")
	}
	if len(t.Metadata) > 0 {
		b.WriteString("metadata:\n")
		keys := slices.Sorted(maps.Keys(t.Metadata))
		for _, k := range keys {
			switch v := t.Metadata[k].(type) {
			case string:
				fmt.Fprintf(&b, "  %s: %s\n", k, yamlScalar(v))
			case int64, bool:
				fmt.Fprintf(&b, "  %s: %v\n", k, v)
			default: // a list or a mapping read from a file: JSON is YAML's flow style
				j, _ := json.Marshal(v)
				fmt.Fprintf(&b, "  %s: %s\n", k, j)
			}
		}
	}
	b.WriteString("---\n")
	b.WriteString(t.Body)
	if t.Body != "" && !strings.HasSuffix(t.Body, "\n") {
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// yamlScalar quotes a string when plain YAML would read it as something else.
func yamlScalar(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ":#\"'\n[]{},&*!|>%@`") &&
		strings.TrimSpace(s) == s && s != "true" && s != "false" && s != "null"
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		plain = false
	}
	if plain {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// ParseTask reads a task file in either Form (FormUpstream when it has a
// schemaVersion), its front matter with the linter's YAML subset
// (ParseFrontmatter); it never panics on bad input.
func ParseTask(data []byte) (*Task, error) {
	fm, err := ParseFrontmatter(data)
	if err != nil {
		return nil, fmt.Errorf("task file frontmatter: %v", err)
	}
	lines := strings.Split(strings.TrimPrefix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\uFEFF"), "\n")
	t := &Task{Form: FormMinimal}
	if fm.BodyLine-1 < len(lines) {
		t.Body = strings.Join(lines[fm.BodyLine-1:], "\n")
	}
	v := fm.Values
	if _, ok := v["schemaVersion"]; ok {
		t.Form = FormUpstream
	}
	t.ID, t.Title, t.Status = scalarText(v, "id"), scalarText(v, "title"), scalarText(v, "status")
	t.CreatedAt, t.UpdatedAt = scalarText(v, "createdAt"), scalarText(v, "updatedAt")
	t.Project, t.Priority = scalarText(v, "project"), scalarText(v, "priority")
	t.CreatedBy, t.LastTransitionAt = scalarText(v, "createdBy"), scalarText(v, "lastTransitionAt")
	t.Assignee = scalarText(v, "assignee")
	if r, ok := v["routing"].(map[string]any); ok && t.Assignee == "" {
		// AOF's dispatcher routes to routing.agent ?? routing.role ?? routing.team.
		for _, k := range []string{"agent", "role", "team"} {
			if t.Assignee = scalarText(r, k); t.Assignee != "" {
				break
			}
		}
	}
	if l, ok := v["lease"].(map[string]any); ok {
		t.Lease = &Lease{Agent: scalarText(l, "agent"), AcquiredAt: scalarText(l, "acquiredAt"), ExpiresAt: scalarText(l, "expiresAt")}
	}
	if m, ok := v["metadata"].(map[string]any); ok {
		for k, mv := range m {
			if mv != nil {
				t.SetMeta(k, mv)
			}
		}
	}
	if t.ID == "" {
		return nil, fmt.Errorf("task file has no id")
	}
	return t, nil
}

// scalarText is m[k] as text: "" when absent, null, a list or a mapping.
func scalarText(m map[string]any, k string) string {
	switch x := m[k].(type) {
	case string:
		return x
	case nil, map[string]any, []any:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// AppendWorkLog adds "- <at> <entry>" under the body's "## Work Log" section,
// creating the section at the end when it is missing (aof-1 §Work Log Entry Format).
func (t *Task) AppendWorkLog(at, entry string) {
	line := "- " + at + " " + entry + "\n"
	body := t.Body
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	if !strings.Contains(body, "## Work Log\n") {
		if body != "" {
			body += "\n"
		}
		body += "## Work Log\n\n"
	}
	t.Body = body + line
}
