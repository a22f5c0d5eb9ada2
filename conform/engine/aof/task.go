// Package aof is the reference dispatcher of AOF/1 (specs/aof-1.md): the
// filesystem-first task store, leases and run artifacts, the heartbeat writer, the
// protocol router, the session_end hook, the scheduler poll with stale-heartbeat
// recovery, and the events log. All time is read from a clock.Clock.
package aof

import (
	"bufio"
	"encoding/json"
	"fmt"
	"sort"
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

// Task is one task file: tasks/<status>/<id>.md, YAML frontmatter and a Markdown body.
type Task struct {
	ID        string
	Title     string
	Status    string
	Assignee  string
	CreatedAt string
	UpdatedAt string
	Lease     *Lease
	// Metadata holds delegationDepth (int), reviewRequired (bool), parentTaskId and
	// anything else; values are string, int64 or bool.
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

// Marshal renders the task file.
func (t *Task) Marshal() []byte {
	var b strings.Builder
	b.WriteString("---\n")
	kv := func(indent, k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s%s: %s\n", indent, k, yamlScalar(v))
		}
	}
	kv("", "id", t.ID)
	kv("", "title", t.Title)
	kv("", "status", t.Status)
	kv("", "assignee", t.Assignee)
	kv("", "createdAt", t.CreatedAt)
	kv("", "updatedAt", t.UpdatedAt)
	if t.Lease != nil {
		b.WriteString("lease:\n")
		kv("  ", "agent", t.Lease.Agent)
		kv("  ", "acquiredAt", t.Lease.AcquiredAt)
		kv("  ", "expiresAt", t.Lease.ExpiresAt)
	}
	if len(t.Metadata) > 0 {
		b.WriteString("metadata:\n")
		keys := make([]string, 0, len(t.Metadata))
		for k := range t.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch v := t.Metadata[k].(type) {
			case string:
				fmt.Fprintf(&b, "  %s: %s\n", k, yamlScalar(v))
			default:
				fmt.Fprintf(&b, "  %s: %v\n", k, v)
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

// ParseTask reads a task file. It accepts the subset of YAML the engine writes plus
// what an agent writing a child task would plausibly write (quoted or plain
// scalars, one level of nesting); it never panics on bad input.
func ParseTask(data []byte) (*Task, error) {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return nil, fmt.Errorf("task file does not start with a --- frontmatter line")
	}
	rest := s[4:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, fmt.Errorf("task file frontmatter has no closing --- line")
	}
	front, body := rest[:end+1], rest[end+4:]
	body = strings.TrimPrefix(body, "\n")
	t := &Task{Body: body}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(front))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			return nil, fmt.Errorf("frontmatter line %d: %q is not key: value", n, line)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !indented {
			section = ""
			if v == "" {
				section = k
				if k == "lease" {
					t.Lease = &Lease{}
				}
				continue
			}
			sv, err := unquote(v)
			if err != nil {
				return nil, fmt.Errorf("frontmatter line %d: %v", n, err)
			}
			switch k {
			case "id":
				t.ID = sv
			case "title":
				t.Title = sv
			case "status":
				t.Status = sv
			case "assignee":
				t.Assignee = sv
			case "createdAt":
				t.CreatedAt = sv
			case "updatedAt":
				t.UpdatedAt = sv
			}
			continue
		}
		switch section {
		case "lease":
			sv, err := unquote(v)
			if err != nil {
				return nil, fmt.Errorf("frontmatter line %d: %v", n, err)
			}
			switch k {
			case "agent":
				t.Lease.Agent = sv
			case "acquiredAt":
				t.Lease.AcquiredAt = sv
			case "expiresAt":
				t.Lease.ExpiresAt = sv
			}
		case "metadata":
			val, err := metaValue(v)
			if err != nil {
				return nil, fmt.Errorf("frontmatter line %d: %v", n, err)
			}
			t.SetMeta(k, val)
		}
	}
	if t.ID == "" {
		return nil, fmt.Errorf("task file has no id")
	}
	return t, nil
}

func unquote(v string) (string, error) {
	if strings.HasPrefix(v, `"`) {
		var s string
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return "", fmt.Errorf("bad quoted string %s", v)
		}
		return s, nil
	}
	if len(v) >= 2 && strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'"), nil
	}
	return v, nil
}

func metaValue(v string) (any, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	return unquote(v)
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
