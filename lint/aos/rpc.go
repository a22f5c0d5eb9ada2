package aos

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

const specResponse = "aos-0.1.0 §3.12.2 JSONRPCResponse Object"

var (
	// RPCVersion: jsonrpc exactly "2.0".
	RPCVersion = ruleDocs.Rule(lint.Rule{ID: "AOS-RPC-001", Protocol: ID, Severity: lint.Error, Run: checkVersion})
	// RPCID: id a string or an integer.
	RPCID = ruleDocs.Rule(lint.Rule{ID: "AOS-RPC-002", Protocol: ID, Severity: lint.Error, Run: checkID})
	// RPCResultXorError: one of result and error.
	RPCResultXorError = ruleDocs.Rule(lint.Rule{ID: "AOS-RPC-003", Protocol: ID, Severity: lint.Error, Spec: specResponse, Run: checkResultXorError})
	// RPCMethod: known methods only.
	RPCMethod = ruleDocs.Rule(lint.Rule{
		ID: "AOS-RPC-004", Protocol: ID, Severity: lint.Error,
		Doc: "AOS 0.1.0 defines ten methods: " + strings.Join(Methods, ", ") + ". " +
			"A guardian answers any other method with -32601 Method not found. A raw MCP or A2A message (tools/call, message/send, ...) " +
			"is not an AOS request: wrap it in protocols/MCP or protocols/A2A with the message in params.message (§4.7, §4.8).",
		Run: checkMethod,
	})
	// RPCBatch: no JSON-RPC batches.
	RPCBatch = ruleDocs.Rule(lint.Rule{ID: "AOS-RPC-005", Protocol: ID, Kinds: []string{KindBatch}, Severity: lint.Error, Run: checkBatch})
)

func checkBatch(p *lint.Pass) {
	root := p.Msg.Root
	if root == nil || root.Kind != jsonread.Array {
		return
	}
	requests := 0
	for _, it := range root.Items {
		if it.Has("method") {
			requests++
		}
	}
	n := len(root.Items)
	switch requests {
	case n:
		p.Reportf("", "the body is a JSON-RPC batch, an array of %d requests: AOS 0.1.0 has no batches, \"The body of the HTTP POST request MUST be a JSONRPCRequest object\" (§4); send each request in a POST of its own", n)
	case 0:
		p.Reportf("", "the body is a JSON-RPC batch, an array of %d responses: AOS 0.1.0 has no batches, \"The guardian's agent HTTP response body MUST be a JSONRPCResponse object\" (§4); answer each request on its own", n)
	default:
		p.Reportf("", "the body is a JSON-RPC batch, an array of %d requests and responses: AOS 0.1.0 has no batches, a request body \"MUST be a JSONRPCRequest object\" and a response body \"MUST be a JSONRPCResponse object\" (§4)", n)
	}
}

func checkVersion(p *lint.Pass) {
	v := viewOf(p.Msg).jsonrpc
	switch {
	case v == nil:
		p.Claim("/jsonrpc")
		if p.Msg.Dialect == DialectNoJSONRPC || isRequest(p.Msg) {
			p.Reportf("", "\"jsonrpc\" is missing: the upstream AOS JSON Schema does not require it, but AOS 0.1.0 §3.12.1 does; add \"jsonrpc\": \"2.0\"")
			return
		}
		p.Reportf("", "\"jsonrpc\" is missing: AOS 0.1.0 §3.12.2 requires \"jsonrpc\": \"2.0\" in every response")
	case v.Kind != jsonread.String:
		p.Claim("/jsonrpc")
		p.Reportf("/jsonrpc", "\"jsonrpc\" is %s %s; it must be the string \"2.0\"", kindOf(v), raw(v))
	case v.Str != "2.0":
		p.Claim("/jsonrpc")
		p.Reportf("/jsonrpc", "\"jsonrpc\" is %q; AOS uses JSON-RPC 2.0: it must be exactly \"2.0\"", v.Str)
	}
}

func checkID(p *lint.Pass) {
	view := viewOf(p.Msg)
	id := view.id
	req := view.request()
	switch {
	case id == nil:
		p.Claim("/id")
		if req {
			p.Reportf("", "the request has no \"id\": AOS requests are never notifications; give it a string or integer id the guardian echoes (§3.12.1)")
		} else {
			p.Reportf("", "the response has no \"id\": it must echo the id of the request it answers (§3.12.2)")
		}
	case id.Kind == jsonread.String:
	case id.Kind == jsonread.Number:
		if !spec.NumberID(json.Number(id.Str)) {
			p.Claim("/id")
			p.Reportf("/id", "\"id\" is %s; it must be a string or an integer, such as %d or %q", raw(id), 1, "req-1")
		}
	case id.Kind == jsonread.Null && !req && view.err != nil && view.result == nil:
		// §3.12.2: null when the request's id could not be detected.
	default:
		p.Claim("/id")
		if id.Kind == jsonread.Null && !req {
			p.Reportf("/id", "\"id\" is null: only an error response to an unreadable request may have a null id; echo the request's id")
			return
		}
		p.Reportf("/id", "\"id\" is %s; it must be a string or an integer", kindOf(id))
	}
}

func checkResultXorError(p *lint.Pass) {
	v := viewOf(p.Msg)
	res, errN := v.result, v.err
	if v.request() {
		for _, m := range [...]struct {
			key string
			n   *jsonread.Node
		}{{"result", res}, {"error", errN}} {
			if m.n != nil {
				p.Claim("/" + m.key)
				p.Reportf("/"+m.key, "a request (it has \"method\") must not carry %q; only the guardian's response does", m.key)
			}
		}
		return
	}
	switch {
	case res != nil && errN != nil:
		p.Claim("/result")
		p.Claim("/error")
		p.Reportf("/error", "the response has both \"result\" and \"error\"; they are mutually exclusive: keep \"result\" on success, \"error\" on failure")
	case res == nil && errN == nil:
		p.Reportf("", "the JSON-RPC message has no \"method\", \"result\" or \"error\": a request needs a method, a response exactly one of result and error")
	}
}

func checkMethod(p *lint.Pass) {
	mn := viewOf(p.Msg).method
	if mn == nil {
		return
	}
	if mn.Kind != jsonread.String {
		p.Reportf("/method", "\"method\" is %s; it must be the name of an AOS method: %s", kindOf(mn), strings.Join(Methods, ", "))
		return
	}
	name := mn.Str
	if IsMethod(name) {
		return
	}
	switch p.Msg.Dialect {
	case DialectOWASPA2A:
		return // AOS-DIALECT-004 names it
	case DialectRawMCP:
		p.Reportf("/method", "method %q is an MCP method: this is a raw MCP message, not an AOS request; send it as {\"method\": \"protocols/MCP\", \"params\": {\"message\": <this message>}} (§4.8)", name)
		return
	case DialectRawA2A:
		p.Reportf("/method", "method %q is an A2A method: this is a raw A2A message, not an AOS request; send it as {\"method\": \"protocols/A2A\", \"params\": {\"message\": <this message>}} (§4.7)", name)
		return
	}
	if near := nearMethod(name); near != "" {
		p.Reportf("/method", "unknown method %q; did you mean %q? AOS 0.1.0 methods: %s", name, near, strings.Join(Methods, ", "))
		return
	}
	p.Reportf("/method", "unknown method %q; AOS 0.1.0 methods: %s", name, strings.Join(Methods, ", "))
}

// nearMethod finds the AOS method a misspelt name most likely meant: another case,
// a missing prefix, a truncated name (§3.12.1's own examples "steps/knowledge" and
// "messages/mcp" are such names).
func nearMethod(name string) string {
	low := strings.ToLower(name)
	switch low {
	case "messages/mcp", "message/mcp", "mcp":
		return "protocols/MCP"
	case "messages/a2a", "message/a2a", "a2a":
		return "protocols/A2A"
	}
	for _, m := range Methods {
		ml := strings.ToLower(m)
		if low == ml || strings.TrimPrefix(ml, "steps/") == low || strings.TrimPrefix(ml, "protocols/") == low {
			return m
		}
	}
	if strings.HasPrefix(low, "steps/") && len(low) > len("steps/")+3 {
		for _, m := range Methods {
			if strings.HasPrefix(strings.ToLower(m), low) {
				return m
			}
		}
	}
	return ""
}

// raw renders a scalar node as JSON text for messages.
func raw(n *jsonread.Node) string {
	if n.Kind == jsonread.String {
		return fmt.Sprintf("%q", n.Str)
	}
	return n.Scalar()
}
