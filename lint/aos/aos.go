// Package aos lints AOS 0.1.0 (Agent Observability Standard) messages: JSON-RPC 2.0
// requests an agent sends to its guardian agent and the guardian's responses.
//
// Kinds: one per request method ("steps/toolCallRequest", "ping", ...), "response"
// (AOSSuccessResponse), "response:ping" (PingRequestSuccessResponse) and "error"
// (JSONRPCErrorResponse). A JSON-RPC message with an unknown method is still aos,
// with kind "", so AOS-RPC-004 can name the method.
package aos

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
	"github.com/aopkit/aopkit/lint/wrapped"
)

// ID is the protocol's ID.
const ID = "aos"

// Kinds of AOS messages.
const (
	KindResponse     = "response"
	KindPingResponse = "response:ping"
	KindError        = "error"
	// KindBatch is a JSON array of JSON-RPC objects: a JSON-RPC 2.0 batch, which
	// AOS 0.1.0 does not have (AOS-RPC-005).
	KindBatch = "batch"

	// Records of aopkit's conformance binding for AOS (not AOS messages): the work
	// script the harness writes on the agent's stdin and the line the agent prints
	// on stdout for each tool it executed.
	KindScript   = "binding:script"
	KindExecuted = "binding:executed"
)

// Methods are the ten request methods of AOS 0.1.0 §4, in spec order (lint/spec/aos).
var Methods = spec.Methods

// Dialects the detector recognises.
const (
	DialectNoJSONRPC = "upstream-schema-no-jsonrpc" // upstream JSON Schema: jsonrpc optional
	DialectOWASPA2A  = "owasp-a2a-hooks"            // later OWASP schema: per-method A2A wrappers
	DialectRawMCP    = "raw-mcp"                    // an MCP message sent as is, not wrapped
	DialectRawA2A    = "raw-a2a"                    // an A2A message sent as is, not wrapped
)

// IsMethod reports whether m is one of the ten AOS methods.
func IsMethod(m string) bool { return spec.IsMethod(m) }

func init() {
	lint.RegisterProtocol(&lint.Protocol{
		ID:     ID,
		Name:   "Agent Observability Standard 0.1.0 (AOS)",
		Spec:   "aos-0.1.0",
		Kinds:  append(append([]string(nil), Methods...), KindResponse, KindPingResponse, KindError, KindBatch, KindScript, KindExecuted),
		Detect: Detect,
		Schema: SchemaFile,
	})
}

// SchemaFile names the schema of a kind: "steps/toolCallRequest" is
// aos/steps.toolCallRequest.schema.json, "response:ping" aos/response.ping.schema.json.
func SchemaFile(kind string) string {
	if i := spec.MethodIndex(kind); i >= 0 {
		return methodSchemas[i]
	}
	switch kind {
	case KindResponse:
		return responseSchema
	case KindPingResponse:
		return pingResponseSchema
	case KindError:
		return errorSchema
	}
	return ""
}

// The schemas of the kinds (schemaFileOf), made once: the driver asks for every
// message. methodSchemas are the methods', by their index in spec.Methods.
var (
	methodSchemas = func() []string {
		files := make([]string, len(spec.Methods))
		for i, m := range spec.Methods {
			files[i] = schemaFileOf(m)
		}
		return files
	}()
	responseSchema     = schemaFileOf(KindResponse)
	pingResponseSchema = schemaFileOf(KindPingResponse)
	errorSchema        = schemaFileOf(KindError)
)

func schemaFileOf(kind string) string {
	if kind == "" {
		return ""
	}
	if !IsMethod(kind) && kind != KindResponse && kind != KindPingResponse && kind != KindError {
		return ""
	}
	r := strings.NewReplacer("/", ".", ":", ".")
	return "aos/" + r.Replace(kind) + ".schema.json"
}

// Detect recognises the JSON-RPC shape of AOS 0.1.0 (§2.2, §3.12). Messages of the
// other protocols (orchmsg "type", aop2 "message_type", AOF "protocol") are never
// claimed unless they carry "jsonrpc".
func Detect(root *jsonread.Node, _ string) (kind, dialect string, confidence int) {
	if root != nil && root.Kind == jsonread.Array {
		return detectBatch(root)
	}
	if root == nil || root.Kind != jsonread.Object {
		return "", "", 0
	}
	if k, c := detectBinding(root); c > 0 {
		return k, "", c
	}
	// The members are read as the answer needs them: most lines of a stream
	// are another protocol's, and have neither a method nor a result or error.
	hasRPC := root.Has("jsonrpc")
	method := root.Get("method")
	if method != nil {
		name := method.String()
		switch kind := spec.Method(name); {
		case kind != "":
			conf := 95
			if !hasRPC {
				dialect, conf = DialectNoJSONRPC, 80
				if foreign(root) {
					conf = 40
				}
			}
			return kind, dialect, conf // the spec's string: the kind is kept (rule sets by kind)
		case hasRPC:
			return "", foreignDialect(root, name), 70
		}
		return "", "", 0
	}
	res, errN := root.Get("result"), root.Get("error")
	if res == nil && errN == nil {
		if hasRPC {
			return "", "", 60 // JSON-RPC, but neither request nor response: AOS-RPC-003
		}
		return "", "", 0
	}
	conf := 90
	if !hasRPC {
		if foreign(root) || !root.Has("id") {
			return "", "", 0
		}
		conf = 50
	}
	if res != nil {
		return responseKind(res), "", conf
	}
	return KindError, "", conf
}

// foreign reports whether root has a member that names another protocol's
// message (orchmsg "type", aop2 "message_type" or "aop_version", AOF "protocol").
func foreign(root *jsonread.Node) bool {
	return root.Has("type") || root.Has("message_type") || root.Has("aop_version") || root.Has("protocol")
}

// maxBatchDetect bounds the items of an array Detect looks at.
const maxBatchDetect = 32

// detectBatch recognises a JSON-RPC batch of AOS messages: a non-empty array whose
// items (the first 32) are all objects AOS recognises as requests or responses.
func detectBatch(root *jsonread.Node) (kind, dialect string, confidence int) {
	if len(root.Items) == 0 {
		return "", "", 0
	}
	conf := 100
	for i, it := range root.Items {
		if i == maxBatchDetect {
			break
		}
		if it.Kind != jsonread.Object {
			return "", "", 0
		}
		k, _, c := Detect(it, "")
		if c < 50 || strings.HasPrefix(k, "binding:") {
			return "", "", 0
		}
		conf = min(conf, c)
	}
	return KindBatch, "", conf
}

// responseKind tells a ping result (§5.3.1) from a decision (§5.1.1).
func responseKind(res *jsonread.Node) string {
	if res.Kind == jsonread.Object && !res.Has("decision") && (res.Has("status") || res.Has("version") || res.Has("timestamp")) {
		return KindPingResponse
	}
	return KindResponse
}

// foreignDialect names what a JSON-RPC message with a non-AOS method is.
func foreignDialect(root *jsonread.Node, method string) string {
	params := root.Get("params")
	if wrapped.A2AKnown(method) || wrapped.A2AKnown(strings.Replace(method, "task/", "tasks/", 1)) {
		if params.Has("payload") || params.Has("context") {
			return DialectOWASPA2A
		}
		return DialectRawA2A
	}
	if wrapped.MCPKnown(method) {
		return DialectRawMCP
	}
	return ""
}

// kindOf describes a node's JSON type for messages.
func kindOf(n *jsonread.Node) string {
	if n == nil {
		return "missing"
	}
	if n.Kind == jsonread.Number {
		if _, ok := n.Int(); !ok {
			return "a non-integer number"
		}
		return "a number"
	}
	switch n.Kind {
	case jsonread.Null:
		return "null"
	case jsonread.Array, jsonread.Object:
		return "an " + n.Kind.String()
	}
	return "a " + n.Kind.String()
}

// isRequest reports whether the message is a request (it has a method), as its
// view read it.
func isRequest(m *lint.Message) bool { return viewOf(m).request() }

// detectBinding recognises the conformance binding's records: {"executed": {...}}
// and the work script {"task": "...", "tools": [...]}.
func detectBinding(root *jsonread.Node) (string, int) {
	if len(root.Members) == 1 && root.Members[0].Key == "executed" {
		if e := root.Members[0].Value; e.Kind == jsonread.Object && e.Has("executionId") {
			return KindExecuted, 60
		}
	}
	if len(root.Members) == 2 && root.Get("task").IsString() && root.Get("tools") != nil && root.Get("tools").Kind == jsonread.Array && !root.Has("jsonrpc") {
		return KindScript, 30
	}
	return "", 0
}

// isBinding reports whether the message is a binding record, not an AOS message.
func isBinding(m *lint.Message) bool { return strings.HasPrefix(m.Kind, "binding:") }
