package aos

import (
	"sort"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// WrapMessage: the wrapped message sits in params.message.
	WrapMessage = &lint.Rule{
		ID: "AOS-WRAP-001", Title: "wrapped message must be in params.message", Protocol: ID, Kinds: []string{"protocols/A2A", "protocols/MCP"}, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.7.1 protocols/A2A params; §4.8.1 protocols/MCP params",
		Doc: "protocols/A2A and protocols/MCP carry the A2A or MCP message as an object in params.message, beside an optional params.reasoning (§4.7.1, §4.8.1). " +
			"The upstream docs often put the wrapped message directly in params (params.jsonrpc, params.method, ...), and the later OWASP schema names it params.payload; " +
			"both are reported here with the fix.",
		Bad:  `{"jsonrpc": "2.0", "id": 70, "method": "protocols/MCP", "params": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather"}}}`,
		Good: `{"jsonrpc": "2.0", "id": 70, "method": "protocols/MCP", "params": {"message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather"}}}}`,
		Run:  checkWrapMessage,
	}
	// WrapMCP: params.message of protocols/MCP is an MCP message.
	WrapMCP = &lint.Rule{
		ID: "AOS-WRAP-002", Title: "wrapped MCP message is not a valid MCP message", Protocol: ID, Kinds: []string{"protocols/MCP"}, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.8.1 protocols/MCP params (MCP-compliant message); MCP 2025-06-18 / 2025-11-25 schema",
		Doc: "params.message of protocols/MCP is an \"MCP-compliant message\" (§4.8.1): a JSON-RPC 2.0 request, notification or response of MCP. " +
			"aoplint checks a practical subset of the MCP 2025-06-18 and 2025-11-25 schemas: jsonrpc \"2.0\"; a request has a known MCP method and a string " +
			"or integer id; a notification (notifications/*) has no id; the params members each method requires (tools/call: name, and arguments an object; " +
			"resources/read: uri; initialize: protocolVersion, capabilities, clientInfo; ...); a response has an id and exactly one of result (an object) and error {code, message}.",
		Bad:  `{"jsonrpc": "2.0", "id": 70, "method": "protocols/MCP", "params": {"message": {"jsonrpc": "2.0", "id": 1, "method": "tools/run", "params": {"name": "get_weather"}}}}`,
		Good: `{"jsonrpc": "2.0", "id": 70, "method": "protocols/MCP", "params": {"message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"city": "Barcelona"}}}}}`,
		Run:  checkWrapMCP,
	}
	// WrapA2A: params.message of protocols/A2A is an A2A message.
	WrapA2A = &lint.Rule{
		ID: "AOS-WRAP-003", Title: "wrapped A2A message is not a valid A2A message", Protocol: ID, Kinds: []string{"protocols/A2A"}, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.7.1 protocols/A2A params (A2A-compliant message); A2A v0.2.5 / v0.3.0 schema",
		Doc: "params.message of protocols/A2A is an \"A2A-compliant message\" (§4.7.1): an A2A JSON-RPC 2.0 request or response. aoplint checks a practical subset " +
			"of the A2A v0.2.5 and v0.3.0 schemas: jsonrpc \"2.0\"; a request has a known A2A method (message/send, message/stream, tasks/get, tasks/cancel, " +
			"tasks/resubscribe, tasks/pushNotificationConfig/set|get|list|delete, agent/getAuthenticatedExtendedCard) and an id; the params each method requires; " +
			"for message/send and message/stream, params.message is an A2A Message: role user|agent, messageId, kind \"message\", and parts, each of kind text " +
			"(with text), file (with file) or data (with data); a response has an id and exactly one of result and error {code, message}.",
		Bad:  `{"jsonrpc": "2.0", "id": 71, "method": "protocols/A2A", "params": {"message": {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"role": "agent", "parts": [{"kind": "text", "text": "hi"}]}}}}}`,
		Good: `{"jsonrpc": "2.0", "id": 71, "method": "protocols/A2A", "params": {"message": {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"role": "agent", "parts": [{"kind": "text", "text": "hi"}], "messageId": "m-1", "kind": "message"}}}}}`,
		Run:  checkWrapA2A,
	}
)

// mcpMethods maps every MCP method (2025-06-18 and 2025-11-25) to the params members
// both versions require.
var mcpMethods = map[string][]string{
	"completion/complete": {"ref", "argument"}, "elicitation/create": nil, "initialize": {"protocolVersion", "capabilities", "clientInfo"},
	"logging/setLevel": {"level"}, "notifications/cancelled": nil, "notifications/elicitation/complete": {"elicitationId"},
	"notifications/initialized": nil, "notifications/message": {"level", "data"}, "notifications/progress": {"progressToken", "progress"},
	"notifications/prompts/list_changed": nil, "notifications/resources/list_changed": nil, "notifications/resources/updated": {"uri"},
	"notifications/roots/list_changed": nil, "notifications/tasks/status": nil, "notifications/tools/list_changed": nil,
	"ping": nil, "prompts/get": {"name"}, "prompts/list": nil, "resources/list": nil, "resources/read": {"uri"},
	"resources/subscribe": {"uri"}, "resources/templates/list": nil, "resources/unsubscribe": {"uri"}, "roots/list": nil,
	"sampling/createMessage": {"messages", "maxTokens"}, "tasks/cancel": {"taskId"}, "tasks/get": {"taskId"}, "tasks/list": nil,
	"tasks/result": {"taskId"}, "tools/call": {"name"}, "tools/list": nil,
}

// a2aMethods maps every A2A method (v0.2.5 and v0.3.0) to the params members it
// requires; a nil entry with a params requirement is marked in a2aNoParams.
var a2aMethods = map[string]bool{
	"message/send": true, "message/stream": true, "tasks/get": true, "tasks/cancel": true, "tasks/resubscribe": true,
	"tasks/pushNotificationConfig/set": true, "tasks/pushNotificationConfig/get": true, "tasks/pushNotificationConfig/list": true,
	"tasks/pushNotificationConfig/delete": true, "agent/getAuthenticatedExtendedCard": true,
}

var a2aParams = map[string][]string{
	"message/send": {"message"}, "message/stream": {"message"}, "tasks/get": {"id"}, "tasks/cancel": {"id"}, "tasks/resubscribe": {"id"},
	"tasks/pushNotificationConfig/set": {"taskId", "pushNotificationConfig"}, "tasks/pushNotificationConfig/get": {"id"},
	"tasks/pushNotificationConfig/list": {"id"}, "tasks/pushNotificationConfig/delete": {"id", "pushNotificationConfigId"},
}

// inlineWrapped reports whether params itself looks like the wrapped message.
func inlineWrapped(params *jsonread.Node) bool {
	return params.Has("jsonrpc") || params.Has("method") || (params.Has("id") && (params.Has("result") || params.Has("error")))
}

// wrapped returns the wrapped message and its pointer: params.message, or params
// itself in the docs dialect.
func wrapped(root *jsonread.Node) (*jsonread.Node, string) {
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

// rpcShape checks the JSON-RPC 2.0 frame of a wrapped message and returns its method
// ("" for a response) and whether the frame was usable.
func rpcShape(p *lint.Pass, msg *jsonread.Node, base, proto string) (string, bool) {
	if msg.Kind != jsonread.Object {
		return "", false
	}
	if v := msg.Get("jsonrpc"); v.String() != "2.0" {
		if v == nil {
			p.Reportf(base, "the wrapped %s message has no \"jsonrpc\": %s messages are JSON-RPC 2.0, add \"jsonrpc\": \"2.0\"", proto, proto)
		} else {
			p.Reportf(base+"/jsonrpc", "the wrapped %s message's jsonrpc is %s; it must be \"2.0\"", proto, raw(v))
		}
	}
	id := msg.Get("id")
	idOK := id != nil && (id.Kind == jsonread.String || (id.Kind == jsonread.Number && isInt(id)))
	method := msg.Get("method")
	if method == nil {
		res, e := msg.Get("result"), msg.Get("error")
		switch {
		case res == nil && e == nil:
			p.Reportf(base, "the wrapped %s message is neither a request (method) nor a response (result or error)", proto)
			return "", false
		case res != nil && e != nil:
			p.Reportf(base, "the wrapped %s response has both result and error; keep one", proto)
		case e != nil:
			if e.Kind != jsonread.Object || !isIntNode(e.Get("code")) || !e.Get("message").IsString() {
				p.Reportf(base+"/error", "the wrapped %s error must be an object {\"code\": <integer>, \"message\": <string>}", proto)
			}
		}
		if !idOK && !(id != nil && id.Kind == jsonread.Null && e != nil) {
			p.Reportf(base, "the wrapped %s response needs the id of the request it answers (a string or an integer)", proto)
		}
		return "", true
	}
	if method.Kind != jsonread.String {
		p.Reportf(base+"/method", "the wrapped %s message's method is %s; it must be a string", proto, kindOf(method))
		return "", false
	}
	if id != nil && !idOK {
		p.Reportf(base+"/id", "the wrapped %s request's id is %s; it must be a string or an integer", proto, kindOf(id))
	}
	return method.Str, true
}

func isInt(n *jsonread.Node) bool { _, ok := n.Int(); return ok }

func isIntNode(n *jsonread.Node) bool { return n != nil && n.Kind == jsonread.Number && isInt(n) }

// requireParams reports the params members a method requires and lacks.
func requireParams(p *lint.Pass, msg *jsonread.Node, base, proto, method string, need []string) {
	if len(need) == 0 {
		return
	}
	params := msg.Get("params")
	if params == nil || params.Kind != jsonread.Object {
		p.Reportf(base, "the wrapped %s %s request needs params with %s", proto, method, strings.Join(quoteAll(need), ", "))
		return
	}
	for _, k := range need {
		if !params.Has(k) {
			p.Reportf(base+"/params", "the wrapped %s %s request lacks params.%s", proto, method, k)
		}
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = `"` + s + `"`
	}
	return out
}

func checkWrapMCP(p *lint.Pass) {
	msg, base := wrapped(p.Msg.Root)
	if msg == nil {
		return
	}
	method, ok := rpcShape(p, msg, base, "MCP")
	if !ok || method == "" {
		return
	}
	need, known := mcpMethods[method]
	if !known {
		if a2aMethods[method] {
			p.Reportf(base+"/method", "%q is an A2A method, not MCP: wrap A2A messages in protocols/A2A", method)
			return
		}
		p.Reportf(base+"/method", "%q is not an MCP method; MCP methods: %s", method, strings.Join(sortedNames(mcpMethods), ", "))
		return
	}
	hasID := msg.Has("id")
	if strings.HasPrefix(method, "notifications/") {
		if hasID {
			p.Reportf(base+"/id", "the wrapped MCP %s is a notification: it must not have an id", method)
		}
	} else if !hasID {
		p.Reportf(base, "the wrapped MCP %s request has no id: MCP requests must have a string or integer id", method)
	}
	requireParams(p, msg, base, "MCP", method, need)
	if method == "tools/call" {
		if a := msg.Path("params", "arguments"); a != nil && a.Kind != jsonread.Object {
			p.Reportf(base+"/params/arguments", "tools/call arguments is %s; it must be an object of argument names to values", kindOf(a))
		}
		if n := msg.Path("params", "name"); n != nil && n.Kind != jsonread.String {
			p.Reportf(base+"/params/name", "tools/call name is %s; it must be the tool's name as a string", kindOf(n))
		}
	}
}

func checkWrapA2A(p *lint.Pass) {
	msg, base := wrapped(p.Msg.Root)
	if msg == nil {
		return
	}
	method, ok := rpcShape(p, msg, base, "A2A")
	if !ok || method == "" {
		return
	}
	if !a2aMethods[method] {
		if _, mcp := mcpMethods[method]; mcp {
			p.Reportf(base+"/method", "%q is an MCP method, not A2A: wrap MCP messages in protocols/MCP", method)
			return
		}
		p.Reportf(base+"/method", "%q is not an A2A method; A2A methods: %s", method, strings.Join(sortedKeys(a2aMethods), ", "))
		return
	}
	if !msg.Has("id") {
		p.Reportf(base, "the wrapped A2A %s request has no id: A2A requests must have a string or integer id", method)
	}
	requireParams(p, msg, base, "A2A", method, a2aParams[method])
	if method == "message/send" || method == "message/stream" {
		if m := msg.Path("params", "message"); m != nil {
			checkA2AMessage(p, m, base+"/params/message")
		}
	}
}

// checkA2AMessage checks an A2A Message object (A2A schema: Message).
func checkA2AMessage(p *lint.Pass, m *jsonread.Node, ptr string) {
	if m.Kind != jsonread.Object {
		p.Reportf(ptr, "the A2A message is %s; it must be an object", kindOf(m))
		return
	}
	var missing []string
	for _, k := range []string{"role", "parts", "messageId", "kind"} {
		if !m.Has(k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		p.Reportf(ptr, "the A2A Message lacks %s (A2A requires role, parts, messageId and kind \"message\")", strings.Join(quoteAll(missing), ", "))
	}
	if r := m.Get("role"); r != nil && r.String() != "user" && r.String() != "agent" {
		p.Reportf(ptr+"/role", "the A2A Message role is %s; it must be \"user\" or \"agent\"", raw(r))
	}
	if k := m.Get("kind"); k != nil && k.String() != "message" {
		p.Reportf(ptr+"/kind", "the A2A Message kind is %s; it must be \"message\"", raw(k))
	}
	parts := m.Get("parts")
	if parts == nil {
		return
	}
	if parts.Kind != jsonread.Array {
		p.Reportf(ptr+"/parts", "the A2A Message parts is %s; it must be an array of parts", kindOf(parts))
		return
	}
	for i, part := range parts.Items {
		pp := pointer(ptr+"/parts", i)
		k := part.Get("kind").String()
		switch k {
		case "text", "file", "data":
			if !part.Has(k) {
				p.Reportf(pp, "the A2A %s part lacks %q", k, k)
			}
		default:
			p.Reportf(pp, "the A2A part kind is %q; it must be \"text\", \"file\" or \"data\"", k)
		}
	}
}

func sortedNames(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
