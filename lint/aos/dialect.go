package aos

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// DialectCitations: upstream `citations` vs AOS `citation`.
	DialectCitations = ruleDocs.Rule(lint.Rule{ID: "AOS-DIALECT-001", Protocol: ID, Kinds: []string{"steps/message"}, Severity: lint.Error, Run: checkCitations})
	// DialectToolCallResult: upstream nested params.toolCallResult.
	DialectToolCallResult = ruleDocs.Rule(lint.Rule{
		ID: "AOS-DIALECT-002", Protocol: ID, Kinds: []string{"steps/toolCallResult"}, Severity: lint.Error,
		Run: checkNestedToolCallResult,
	})
	// DialectPingTimestamp: upstream top-level ping timestamp.
	DialectPingTimestamp = ruleDocs.Rule(lint.Rule{ID: "AOS-DIALECT-003", Protocol: ID, Kinds: []string{"ping"}, Severity: lint.Error, Run: checkPingTimestamp})
	// DialectOWASP: later OWASP per-method A2A wrappers.
	DialectOWASP = ruleDocs.Rule(lint.Rule{ID: "AOS-DIALECT-004", Protocol: ID, Severity: lint.Error, Run: checkOWASP})
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
