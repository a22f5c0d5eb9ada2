package wrapped

import (
	"fmt"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// a2aObjects maps an A2A object's "kind" to its definition.
var a2aObjects = map[string]string{
	"message":         "Message",
	"task":            "Task",
	"status-update":   "TaskStatusUpdateEvent",
	"artifact-update": "TaskArtifactUpdateEvent",
}

// IsA2ARPC reports whether msg is framed as JSON-RPC (a request or a response)
// rather than a bare A2A object.
func IsA2ARPC(msg *jsonread.Node) bool {
	return msg.Has("jsonrpc") || msg.Has("method") || (msg.Has("id") && (msg.Has("result") || msg.Has("error")))
}

// A2AObject names the A2A definition a bare object is an instance of: by its
// "kind", else by the members only that definition has; "" when none fits.
func A2AObject(msg *jsonread.Node) string {
	if k := msg.Get("kind"); k.IsString() {
		if d, ok := a2aObjects[k.Str]; ok {
			return d
		}
	}
	switch {
	case msg.Has("artifactId"):
		return "Artifact"
	case msg.Has("role") || msg.Has("parts"):
		return "Message"
	case msg.Has("status") && msg.Has("contextId"):
		return "Task"
	case msg.Has("skills") || msg.Has("capabilities"):
		return "AgentCard"
	}
	return ""
}

// CheckA2A checks msg, the message a protocols/A2A request wraps, against every
// carried A2A revision. It may be an A2A JSON-RPC request or response, or an A2A
// object (Message, Task, TaskStatusUpdateEvent, TaskArtifactUpdateEvent,
// Artifact, AgentCard): §4.7.1 asks for an "A2A-compliant message", and each of them is one.
func CheckA2A(msg *jsonread.Node) []Finding {
	out, err := checkA2A(msg)
	if err != nil {
		return internalError("A2A", err)
	}
	return out
}

func checkA2A(msg *jsonread.Node) ([]Finding, error) {
	if msg.Kind != jsonread.Object {
		return []Finding{{Severity: lint.Error, Message: fmt.Sprintf("the wrapped A2A message is %s; it must be an A2A JSON-RPC request or response, or an A2A object such as a Message or a Task", kindOf(msg))}}, nil
	}
	var out []Finding
	var defs func(*Revision) []string
	method := msg.Get("method")
	switch {
	case !IsA2ARPC(msg):
		obj := A2AObject(msg)
		if obj == "" {
			return []Finding{{Severity: lint.Error, Message: "the wrapped A2A message is neither JSON-RPC (jsonrpc, method or result) nor an A2A object: a Message has role, parts, messageId and kind \"message\"; a Task has id, contextId, status and kind \"task\""}}, nil
		}
		defs = only(obj)
	case method != nil && method.Kind == jsonread.String && A2AKnown(method.Str):
		defs = func(r *Revision) []string {
			if d := r.Method(method.Str); d != "" {
				return []string{d}
			}
			return nil
		}
	case method != nil:
		defs = only("JSONRPCRequest")
		if method.Kind == jsonread.String {
			out = append(out, unknownMethod("A2A", A2A, method.Str, "MCP", mcpKnown(method.Str)))
		}
	case msg.Has("error"):
		defs = only("JSONRPCErrorResponse")
	case msg.Has("result"):
		defs = only("JSONRPCResponse")
	default:
		return []Finding{{Severity: lint.Error, Message: "the wrapped A2A message has jsonrpc but is neither a request (method) nor a response (result or error)"}}, nil
	}
	return verdict("A2A", A2A, msg, defs, out)
}

// only checks against one definition, in each revision that has it.
func only(def string) func(*Revision) []string {
	return func(r *Revision) []string {
		if r.Defines(def) {
			return []string{def}
		}
		return nil
	}
}
