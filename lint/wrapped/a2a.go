package wrapped

import (
	"fmt"
	"strings"

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
	out := bothResultAndError("A2A", "; A2A is JSON-RPC 2.0", msg)
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
	case method != nil && method.Kind == jsonread.String && A2AV01[method.Str] != "":
		defs = only("JSONRPCRequest")
		out = append(out, checkV01Send(msg, method.Str))
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

// A2AV01 maps the message-sending methods of A2A v0.1, which v0.2 renamed, to
// their later names. No registry this project may use carries v0.1's official
// JSON Schema, so their params are checked against v0.1's TaskSendParams by
// hand (checkV01Send).
var A2AV01 = map[string]string{
	"tasks/send":          "message/send",
	"tasks/sendSubscribe": "message/stream",
}

// checkV01Send judges a request of a v0.1 method (A2AV01): with v0.1's params
// ({id, sessionId?, message: {role, parts: [{type: text|file|data, ...}]}}) it
// is a message of a revision aoplint does not carry, an info; with any other
// params (v0.2's: a message with messageId and kind, parts with kind) it is
// invalid under every A2A revision, since v0.2 and later define no such method:
// an error naming the method to use.
func checkV01Send(msg *jsonread.Node, method string) Finding {
	if p := v01SendProblem(msg.Get("params")); p != "" {
		return Finding{Pointer: "/method", Severity: lint.Error,
			Message: fmt.Sprintf("%q is A2A v0.1's method, renamed %s in v0.2: A2A %s define no %s, and its params are not v0.1's (%s), so no A2A revision accepts this request; send %s", method, A2AV01[method], joinOr(RevisionNames(A2A)), method, p, A2AV01[method])}
	}
	return Finding{Pointer: "/method", Severity: lint.Info,
		Message: fmt.Sprintf("%q is a method of A2A v0.1 (renamed %s in v0.2), whose official schema aoplint does not carry: its params were checked against v0.1's TaskSendParams only", method, A2AV01[method])}
}

// v01SendProblem is the first way params is not v0.1's TaskSendParams ("" when it is).
func v01SendProblem(params *jsonread.Node) string {
	if params == nil || params.Kind != jsonread.Object {
		return "v0.1 needs params {id, message}"
	}
	if !params.Get("id").IsString() {
		return "v0.1 needs params.id, the task's id"
	}
	m := params.Get("message")
	if m == nil || m.Kind != jsonread.Object {
		return "v0.1 needs params.message"
	}
	if r := m.Get("role"); !r.IsString() || (r.Str != "user" && r.Str != "agent") {
		return "v0.1 needs params.message.role user or agent"
	}
	parts := m.Get("parts")
	if parts == nil || parts.Kind != jsonread.Array || len(parts.Items) == 0 {
		return "v0.1 needs params.message.parts"
	}
	for _, pt := range parts.Items {
		ty := pt.Get("type")
		if pt.Kind != jsonread.Object || !ty.IsString() || (ty.Str != "text" && ty.Str != "file" && ty.Str != "data") {
			if pt.Kind == jsonread.Object && pt.Has("kind") {
				return "its parts have v0.2's kind where v0.1 has type"
			}
			return "v0.1's parts have type text, file or data"
		}
	}
	return ""
}

func joinOr(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
