package aos

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/wrapped"
)

var (
	// WrapMessage: the wrapped message sits in params.message.
	WrapMessage = ruleDocs.Rule(lint.Rule{
		ID: "AOS-WRAP-001", Protocol: ID, Kinds: []string{"protocols/A2A", "protocols/MCP"}, Severity: lint.Error,
		Run: checkWrapMessage,
	})
	// WrapMCP: params.message of protocols/MCP is an MCP message.
	WrapMCP = ruleDocs.Rule(lint.Rule{
		ID: "AOS-WRAP-002", Protocol: ID, Kinds: []string{"protocols/MCP"}, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.8.1 protocols/MCP params (MCP-compliant message); official MCP schema, revisions " + mcpRevisions,
		Doc: "params.message of protocols/MCP is an \"MCP-compliant message\" (§4.8.1), and §4.8.1 names no MCP revision. aoplint checks it against the " +
			"complete official MCP JSON Schema of every revision it carries (" + mcpRevisions + "; docs/wrapped-protocols.md): a request or notification " +
			"against JSONRPCRequest or JSONRPCNotification and the definition of its method (tools/call: CallToolRequest, ...), a response against " +
			"the JSON-RPC response (a result is an object) or error definitions; a notification must not have an id (MCP's \"Notifications MUST NOT " +
			"include an ID\"). The message is valid when one revision that defines its method " +
			"accepts it; otherwise each diagnostic names the revision whose verdict it reports. A method no carried revision defines is a warning " +
			"(custom methods are an MCP extension point); the methods of MCP 2026-07-28 (subscriptions/listen, server/discover, " +
			"notifications/subscriptions/acknowledged), whose schema aoplint does not carry, are an info and only their JSON-RPC frame is checked.",
		Run: checkWrapMCP,
	})
	// WrapA2A: params.message of protocols/A2A is an A2A message.
	WrapA2A = ruleDocs.Rule(lint.Rule{
		ID: "AOS-WRAP-003", Protocol: ID, Kinds: []string{"protocols/A2A"}, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.7.1 protocols/A2A params (A2A-compliant message); official A2A schema, revisions " + a2aRevisions,
		Doc: "params.message of protocols/A2A is an \"A2A-compliant message\" (§4.7.1). Both an A2A JSON-RPC request or response and an A2A object " +
			"(a Message, a Task, a TaskStatusUpdateEvent or TaskArtifactUpdateEvent, an Artifact, an AgentCard) are one. aoplint checks it against the complete " +
			"official A2A JSON Schema of every revision it carries (" + a2aRevisions + "; docs/wrapped-protocols.md): a request against the definition " +
			"of its method (message/send: SendMessageRequest, params included), a response against JSONRPCResponse (every method's result and the " +
			"error response), an object against its definition, chosen by its kind. The message is valid when one revision accepts it; otherwise each " +
			"diagnostic names the revision whose verdict it reports. A method no carried revision defines is a warning (an A2A extension point).",
		Run: checkWrapA2A,
	})
)

// The revisions of the official schemas the WRAP rules carry, for their docs.
var (
	mcpRevisions = strings.Join(wrapped.RevisionNames(wrapped.MCP), ", ")
	a2aRevisions = strings.Join(wrapped.RevisionNames(wrapped.A2A), ", ")
)

// inlineWrapped reports whether params itself looks like the wrapped message.
func inlineWrapped(params *jsonread.Node) bool {
	return params.Has("jsonrpc") || params.Has("method") || (params.Has("id") && (params.Has("result") || params.Has("error")))
}

// wrappedMessage returns the wrapped message and its pointer: params.message, or params
// itself in the docs dialect.
func wrappedMessage(root *jsonread.Node) (*jsonread.Node, string) {
	params := root.Get("params")
	if m := params.Get("message"); m != nil {
		return m, "/params/message"
	}
	if params != nil && params.Kind == jsonread.Object && inlineWrapped(params) {
		return params, "/params"
	}
	return nil, ""
}

func checkWrapMessage(p *lint.Pass) {
	params := p.Msg.Root.Get("params")
	if params == nil || params.Kind != jsonread.Object {
		return // the schema says params must be an object
	}
	proto := strings.TrimPrefix(p.Msg.Kind, "protocols/")
	m := params.Get("message")
	switch {
	case m != nil && m.Kind == jsonread.Array && proto == "MCP":
		// a JSON-RPC batch: MCP 2025-03-26 had them; AOS-WRAP-002 checks each element
	case m != nil && m.Kind != jsonread.Object:
		p.Claim("/params/message")
		p.Reportf("/params/message", "params.message is %s; it must be the %s message as a JSON object, not serialised", kindOf(m), proto)
	case m != nil:
	case inlineWrapped(params):
		p.Claim("/params/message")
		p.Reportf("/params", "the %s message sits directly in params (the upstream docs dialect); AOS 0.1.0 %s puts it in params.message: {\"params\": {\"message\": {\"jsonrpc\": \"2.0\", ...}, \"reasoning\": \"...\"}}", proto, wrapSection(proto))
	case params.Has("payload"):
		p.Claim("/params/message")
		p.Reportf("/params/payload", "params.payload is the later OWASP AOS schema's name for the wrapped message; AOS 0.1.0 %s calls it params.message", wrapSection(proto))
	default:
		p.Claim("/params/message")
		p.Reportf("/params", "params.message is required: the %s message this request wraps (%s)", proto, wrapSection(proto))
	}
}

func wrapSection(proto string) string {
	if proto == "A2A" {
		return "§4.7.1"
	}
	return "§4.8.1"
}

func checkWrapMCP(p *lint.Pass) {
	msg, base := wrappedMessage(p.Msg.Root)
	if msg == nil || (base == "/params/message" && msg.Kind != jsonread.Object && msg.Kind != jsonread.Array) {
		return // AOS-WRAP-001 reports a missing or serialised message
	}
	reportFindings(p, base, wrapped.CheckMCP(msg))
}

func checkWrapA2A(p *lint.Pass) {
	msg, base := wrappedMessage(p.Msg.Root)
	if msg == nil || msg.Kind != jsonread.Object {
		return
	}
	reportFindings(p, base, wrapped.CheckA2A(msg))
}

func reportFindings(p *lint.Pass, base string, fs []wrapped.Finding) {
	for _, f := range fs {
		p.ReportSevf(f.Severity, base+f.Pointer, "%s", f.Message)
	}
}
