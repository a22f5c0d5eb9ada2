package wrapped

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// MCPUnpublished maps the methods of MCP revisions whose official schema aoplint
// cannot obtain through a package registry to that revision: the methods MCP
// 2026-07-28 adds, as the official Go SDK (go-sdk v1.8.0) implements them. Their
// messages are checked as JSON-RPC only, with an info diagnostic saying so.
var MCPUnpublished = map[string]string{
	"subscriptions/listen":                     "2026-07-28",
	"server/discover":                          "2026-07-28",
	"notifications/subscriptions/acknowledged": "2026-07-28",
}

// mcpKnown reports whether some carried revision defines method.
func mcpKnown(method string) bool {
	for _, r := range MCP {
		if r.Method(method) != "" {
			return true
		}
	}
	return false
}

// A2AKnown reports whether some carried A2A revision defines method.
func A2AKnown(method string) bool {
	for _, r := range A2A {
		if r.Method(method) != "" {
			return true
		}
	}
	return false
}

// MCPKnown reports whether method is an MCP method (of a carried or a named
// unpublished revision).
func MCPKnown(method string) bool {
	_, unpublished := MCPUnpublished[method]
	return unpublished || mcpKnown(method)
}

// CheckMCP checks msg, the message a protocols/MCP request wraps, against every
// carried MCP revision.
func CheckMCP(msg *jsonread.Node) []Finding {
	if msg.Kind == jsonread.Array {
		return checkBatch(msg)
	}
	out, err := checkMCP(msg)
	if err != nil {
		return internalError("MCP", err)
	}
	return out
}

// checkBatch: JSON-RPC batches were part of MCP 2025-03-26 only; each element is
// checked as a message of its own.
func checkBatch(msg *jsonread.Node) []Finding {
	out := []Finding{{Severity: lint.Info, Message: "the wrapped MCP message is a JSON-RPC batch: batches exist only in MCP 2025-03-26 (removed in 2025-06-18), whose official schema aoplint does not carry; each element is checked against " + strings.Join(RevisionNames(MCP), " and ")}}
	if len(msg.Items) == 0 {
		return append(out, Finding{Severity: lint.Error, Message: "the wrapped MCP batch is empty: a JSON-RPC batch holds at least one message"})
	}
	for i, it := range msg.Items {
		fs, err := checkMCP(it)
		if err != nil {
			return internalError("MCP", err)
		}
		for _, f := range fs {
			f.Pointer = "/" + strconv.Itoa(i) + f.Pointer
			out = append(out, f)
		}
	}
	return out
}

func checkMCP(msg *jsonread.Node) ([]Finding, error) {
	if msg.Kind != jsonread.Object {
		return []Finding{{Severity: lint.Error, Message: fmt.Sprintf("the wrapped MCP message is %s; an MCP message is a JSON-RPC 2.0 object (request, notification or response)", kindOf(msg))}}, nil
	}
	out := bothResultAndError("MCP", `; MCP basic protocol: "A response MUST NOT set both"`, msg)
	var defs func(*Revision) []string
	method := msg.Get("method")
	switch {
	case method != nil && method.Kind == jsonread.String && mcpKnown(method.Str):
		if msg.Has("id") && isNotification(method.Str) {
			out = append(out, Finding{Pointer: "/id", Severity: lint.Error,
				Message: fmt.Sprintf("%s is an MCP notification, which must not include an id (MCP basic protocol: \"Notifications MUST NOT include an ID\"); a message with an id is a request", method.Str)})
		}
		defs = func(r *Revision) []string {
			d := r.Method(method.Str)
			if d == "" {
				return nil
			}
			if strings.HasSuffix(d, "Notification") {
				return []string{"JSONRPCNotification", d}
			}
			return []string{"JSONRPCRequest", d}
		}
	case method != nil:
		env := "JSONRPCRequest"
		if !msg.Has("id") {
			env = "JSONRPCNotification"
		}
		defs = func(*Revision) []string { return []string{env} }
		if method.Kind == jsonread.String {
			if rev, ok := MCPUnpublished[method.Str]; ok {
				out = append(out, Finding{Pointer: "/method", Severity: lint.Info,
					Message: fmt.Sprintf("%q is a method of MCP %s, whose official schema aoplint does not carry: only its JSON-RPC frame is checked", method.Str, rev)})
			} else {
				out = append(out, unknownMethod("MCP", MCP, method.Str, "A2A", A2AKnown(method.Str)))
			}
		}
	case msg.Has("error"):
		defs = func(r *Revision) []string { return []string{pick(r, "JSONRPCErrorResponse", "JSONRPCError")} }
	case msg.Has("result"):
		defs = func(r *Revision) []string { return []string{pick(r, "JSONRPCResultResponse", "JSONRPCResponse")} }
	default:
		return []Finding{{Severity: lint.Error, Message: "the wrapped MCP message is neither a request or notification (method) nor a response (result or error)"}}, nil
	}
	return verdict("MCP", MCP, msg, defs, out)
}

// isNotification reports whether the carried revisions define method as a
// notification.
func isNotification(method string) bool {
	for _, r := range MCP {
		if d := r.Method(method); d != "" {
			return strings.HasSuffix(d, "Notification")
		}
	}
	return false
}

// pick returns the first definition the revision has.
func pick(r *Revision, names ...string) string {
	for _, n := range names {
		if r.Defines(n) {
			return n
		}
	}
	return names[len(names)-1]
}
