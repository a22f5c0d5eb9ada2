package aos

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// DialectCitations: upstream `citations` vs AOS `citation`.
	DialectCitations = &lint.Rule{
		ID: "AOS-DIALECT-001", Title: "citation is required (upstream: optional citations)", Protocol: ID, Kinds: []string{"steps/message"}, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.5.1 steps/message params",
		Doc: "AOS 0.1.0 §4.5.1 requires params.citation, an array of Source (empty when nothing is cited). The upstream AOS JSON Schema spells it " +
			"citations and makes it optional, and the upstream docs examples follow the schema. A message with citations and no citation breaks 0.1.0: rename the member. A message with neither (the upstream schema allowed it) must add \"citation\": [].",
		Bad:  `"params": {"context": {...}, "message": {...}, "citations": [{"kind": "file", "id": "f1", "name": "Bank Accounts.xlsx"}]}`,
		Good: `"params": {"context": {...}, "message": {...}, "citation": [{"kind": "file", "id": "f1", "name": "Bank Accounts.xlsx"}]}`,
		Run:  checkCitations,
	}
	// DialectToolCallResult: upstream nested params.toolCallResult.
	DialectToolCallResult = &lint.Rule{
		ID: "AOS-DIALECT-002", Title: "nested params.toolCallResult is the upstream schema's shape", Protocol: ID, Kinds: []string{"steps/toolCallResult"}, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.6.1 steps/toolCallResult params",
		Doc: "AOS 0.1.0 puts executionId and result directly in the params of steps/toolCallResult (§4.6.1). The upstream AOS JSON Schema nests them as " +
			"params.toolCallResult {executionId, result}. Move both members up one level.",
		Bad:  `"params": {"context": {...}, "toolCallResult": {"executionId": "e1", "result": {"outputs": [], "isError": false}}}`,
		Good: `"params": {"context": {...}, "executionId": "e1", "result": {"outputs": [], "isError": false}}`,
		Run:  checkNestedToolCallResult,
	}
	// DialectPingTimestamp: upstream top-level ping timestamp.
	DialectPingTimestamp = &lint.Rule{
		ID: "AOS-DIALECT-003", Title: "ping timestamp belongs in params", Protocol: ID, Kinds: []string{"ping"}, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.9.1 ping params",
		Doc: "The ping request carries its timestamp in params.timestamp (§4.9.1). The upstream AOS JSON Schema requires it at the top level of the request. " +
			"Without params.timestamp the request breaks 0.1.0 (error); a top-level timestamp beside params.timestamp is only redundant (info).",
		Bad:  `{"jsonrpc": "2.0", "id": 1, "method": "ping", "timestamp": "2025-01-24T15:30:45.123Z"}`,
		Good: `{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"timestamp": "2025-01-24T15:30:45.123Z"}}`,
		Run:  checkPingTimestamp,
	}
	// DialectOWASP: later OWASP per-method A2A wrappers.
	DialectOWASP = &lint.Rule{
		ID: "AOS-DIALECT-004", Title: "per-method A2A wrapper of the later OWASP schema", Protocol: ID, Severity: lint.Error,
		Spec: "aos-0.1.0 §4.7 protocols/A2A",
		Doc: "The later OWASP version of the AOS schema replaced protocols/A2A by one AOS method per A2A method (message/send, tasks/get, ...) with " +
			"params.payload (the A2A message) and params.context {from, to} (whose Agent requires url). That is a later dialect, not AOS 0.1.0: in 0.1.0 " +
			"every A2A message is wrapped by protocols/A2A in params.message (§4.7.1).",
		Bad:  `{"jsonrpc": "2.0", "id": "r1", "method": "message/send", "params": {"payload": {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {...}}, "context": {"from": {...}, "to": {...}}}}`,
		Good: `{"jsonrpc": "2.0", "id": "r1", "method": "protocols/A2A", "params": {"message": {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {...}}}}`,
		Run:  checkOWASP,
	}
)

func checkCitations(p *lint.Pass) {
	params := viewOf(p.Msg).params
	cs := params.Get("citations")
	if cs == nil {
		if params != nil && params.Kind == jsonread.Object && !params.Has("citation") {
			p.Claim("/params/citation")
			p.Reportf("/params", "params.citation is missing: AOS 0.1.0 §4.5.1 requires it for every message, user messages included (the upstream schema made its citations optional); send \"citation\": [] when nothing is cited")
		}
		return
	}
	p.Claim("/params/citations")
	if params.Has("citation") {
		p.ReportSevf(lint.Warning, "/params/citations", "params has both citation and citations; citations is the upstream schema's spelling and is ignored by AOS 0.1.0: remove it")
		return
	}
	p.Claim("/params/citation")
	p.Reportf("/params/citations", "\"citations\" is the upstream AOS schema's spelling; AOS 0.1.0 §4.5.1 requires \"citation\" (an array of Source): rename it")
}

func checkNestedToolCallResult(p *lint.Pass) {
	params := viewOf(p.Msg).params
	n := params.Get("toolCallResult")
	if n == nil {
		return
	}
	p.Claim("/params/toolCallResult")
	if params.Has("executionId") && params.Has("result") {
		p.ReportSevf(lint.Warning, "/params/toolCallResult", "params.toolCallResult (the upstream schema's nesting) repeats executionId and result, which AOS 0.1.0 reads from params: remove it")
		return
	}
	p.Claim("/params/executionId")
	p.Claim("/params/result")
	p.Reportf("/params/toolCallResult", "params.toolCallResult {executionId, result} is the upstream AOS schema's nesting; AOS 0.1.0 §4.6.1 puts executionId and result directly in params: move them up")
}

func checkPingTimestamp(p *lint.Pass) {
	root := p.Msg.Root
	ts := root.Get("timestamp")
	if ts == nil {
		return
	}
	params := viewOf(p.Msg).params
	if params.Get("timestamp") != nil {
		p.ReportSevf(lint.Info, "/timestamp", "the top-level timestamp is the upstream schema's ping quirk; AOS 0.1.0 reads params.timestamp and ignores this one")
		return
	}
	if params == nil {
		p.Claim("/params")
	} else {
		p.Claim("/params/timestamp")
	}
	p.Reportf("/timestamp", "ping's timestamp is at the top level (the upstream schema's quirk); AOS 0.1.0 §4.9.1 requires it in params: {\"params\": {\"timestamp\": %s}}", rawOr(ts, `"2025-01-24T15:30:45.123Z"`))
}

func rawOr(n *jsonread.Node, def string) string {
	if n != nil && n.Kind == jsonread.String {
		return raw(n)
	}
	return def
}

func checkOWASP(p *lint.Pass) {
	if p.Msg.Dialect != DialectOWASPA2A {
		return
	}
	p.Claim("")
	method := viewOf(p.Msg).method.String()
	p.Reportf("/method", "method %q with params.payload and params.context {from, to} is the later OWASP AOS schema's per-method A2A wrapper, not AOS 0.1.0: "+
		"send {\"method\": \"protocols/A2A\", \"params\": {\"message\": <the A2A message in params.payload>, \"reasoning\": ...}} (§4.7.1)", method)
}
