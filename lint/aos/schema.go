package aos

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
)

// Schema validates a message against the draft-07 schema of its kind
// (schemas/aos/<kind>.schema.json, shared objects in common.schema.json).
var Schema = &lint.Rule{
	ID: "AOS-SCHEMA-001", Title: "message does not match its schema", Protocol: ID, Severity: lint.Error,
	Spec: "aos-0.1.0 §3 Standard Data Objects; §4 Protocol RPC Methods; §5 Responses",
	Doc: "Every AOS message is validated against the JSON Schema of its kind, written from the spec's tables: required members, types, enums " +
		"(role user|agent|system, trigger type autonomous, ping status connected|error, argument types), non-empty content arrays. " +
		"Members the spec does not name are allowed. `aoplint schema aos KIND` prints a schema.",
	Bad:    `{"jsonrpc": "2.0", "id": "r1", "method": "steps/toolCallRequest", "params": {"context": {...}, "toolCallRequest": {"executionId": "e1", "toolId": "send_email"}}}`,
	Good:   `{"jsonrpc": "2.0", "id": "r1", "method": "steps/toolCallRequest", "params": {"context": {...}, "toolCallRequest": {"executionId": "e1", "toolId": "send_email", "inputs": []}}}`,
	Schema: true,
	Run:    linter.SchemaRun,
}

// singles are the single-message rules, in ID order.
var singles = []*lint.Rule{
	DialectCitations, DialectToolCallResult, DialectPingTimestamp, DialectOWASP,
	ErrorCode, ErrorString,
	PartKind, PartBase64, PartFile,
	ResultDecision, ResultModify, ResultModifiedRequest,
	RPCVersion, RPCID, RPCResultXorError, RPCMethod,
	SourceKind, TimeISO, URIAbsolute,
	WrapMessage, WrapMCP, WrapA2A,
}

func init() {
	for _, r := range singles {
		run := r.Run
		r.Run = func(p *lint.Pass) {
			if p.Msg.Root == nil || p.Msg.Root.Kind != jsonread.Object || isBinding(p.Msg) {
				return
			}
			run(p)
		}
	}
	singles = append(singles, Binding, RPCBatch)
	singleRules = singles
	lint.Register(singles...)
	lint.Register(Schema)
}
