package orchmsg

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// TypeKnown: the fourteen types only.
var TypeKnown = ruleDocs.Rule(lint.Rule{ID: "ORCH-TYPE-001", Protocol: ID, Severity: lint.Error, Run: checkType})

// TypeDialect: the upstream prototype's task_notification.
var TypeDialect = ruleDocs.Rule(lint.Rule{ID: "ORCH-TYPE-002", Protocol: ID, Severity: lint.Error, Run: checkTaskNotification})

func init() { lint.Register(TypeKnown, TypeDialect) }

func checkType(p *lint.Pass) {
	m := p.Msg
	if m.Root == nil || m.Kind != "" || m.Dialect == DialectTaskNotification {
		return
	}
	t := m.Root.Get("type")
	switch {
	case t == nil:
		p.Reportf("/type", "the message has no \"type\": every message names one of the fourteen types (%s); without it the orchestrator treats the line as log output", list(Types))
	case !t.IsString():
		p.Reportf("/type", "\"type\" must be a string naming one of the fourteen types (%s)", list(Types))
	case m.Dialect == DialectTaskDefinition:
		p.Reportf("/type", "this is a task definition (type %s, name %s), not an orchmsg message: submit it as the payload of a request, {\"type\":\"request:submit-task\",\"id\":...,\"timestamp\":...,\"payload\":{...}}", quote(t.Str), quote(m.Root.Get("name").String()))
	default:
		p.Reportf("/type", "unknown message type %s%s: the orchestrator answers it with INVALID_MESSAGE_TYPE; use one of %s", quote(t.Str), suggest(t.Str), list(Types))
	}
	p.Claim("")
}

// suggest proposes a known type close to t.
func suggest(t string) string {
	lt := strings.ToLower(strings.ReplaceAll(t, "_", "-"))
	for _, k := range Types {
		if lt == k || strings.ReplaceAll(k, ":", "-") == lt || strings.ReplaceAll(k, ":", ".") == lt {
			return fmt.Sprintf(" (did you mean %q?)", k)
		}
	}
	if i := strings.IndexByte(lt, ':'); i >= 0 {
		f, rest := lt[:i], lt[i+1:]
		for _, k := range Types {
			if strings.HasPrefix(k, f+":") && (strings.Contains(k, rest) || strings.Contains(rest, k[len(f)+1:])) {
				return fmt.Sprintf(" (did you mean %q?)", k)
			}
		}
	}
	return ""
}

func checkTaskNotification(p *lint.Pass) {
	m := p.Msg
	if m.Root == nil || m.Dialect != DialectTaskNotification {
		return
	}
	task := m.Root.Get("taskId").String()
	if task == "" {
		task = "task-123"
	}
	p.Reportf("/type", "\"task_notification\" is the upstream prototype's stdin notification, not an orchmsg type: send notify:task-assigned with an id, an ISO timestamp and the task in the payload, {\"type\":\"notify:task-assigned\",\"id\":...,\"timestamp\":...,\"payload\":{\"taskId\":%s,\"message\":...}}", quote(task))
	p.Claim("")
}
