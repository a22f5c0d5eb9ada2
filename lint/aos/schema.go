package aos

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
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
	Run:    schemaRun,
}

// schemaRun is linter.SchemaRun without gojsonschema's summaries of unions that
// another error already explains (see preciseSchemaErrors).
func schemaRun(p *lint.Pass) {
	m := p.Msg
	if m.Root == nil {
		return
	}
	file := SchemaFile(m.Kind)
	if file == "" {
		return
	}
	errs, err := schema.Validate(file, m.Root)
	if err != nil {
		p.Reportf("", "internal error: schema %s: %v", file, err)
		return
	}
	for _, e := range preciseSchemaErrors(errs) {
		p.Reportf(e.Pointer, "%s", e.Message)
	}
}

// summaryRank orders gojsonschema's error types by how little they say: 0 for a
// precise error ("required", "enum", ...), 1 for an if/then or if/else that failed
// (the union of Part and Source selects its branch by kind), 2 for the allOf
// around those branches.
func summaryRank(typ string) int {
	switch typ {
	case "condition_then", "condition_else":
		return 1
	case "number_all_of":
		return 2
	}
	return 0
}

// preciseSchemaErrors drops a summary error ("Must validate "then" as "if" was
// valid", "Must validate all the schemas (allOf)") when a more precise error is at
// or below its pointer: a SiteSource without url gets only ""url" is required".
// A summary that is the only error of its object stays.
func preciseSchemaErrors(errs []schema.Error) []schema.Error {
	if len(errs) == 0 {
		return errs // nearly every message: no table to make
	}
	// best[p]: the lowest rank of an error at p or below it
	best := map[string]int{}
	for _, e := range errs {
		r := summaryRank(e.Type)
		for p := e.Pointer; ; {
			if b, ok := best[p]; ok && b <= r {
				break // p's ancestors already have a rank this low
			}
			best[p] = r
			if p == "" {
				break
			}
			p = p[:strings.LastIndexByte(p, '/')]
		}
	}
	out := errs[:0:0]
	for _, e := range errs {
		r := summaryRank(e.Type)
		if r > 0 && best[e.Pointer] < r {
			continue
		}
		out = append(out, e)
	}
	return out
}

// singles are the single-message rules, in ID order.
var singles = []*lint.Rule{
	DialectCitations, DialectToolCallResult, DialectPingTimestamp, DialectOWASP,
	ErrorCode, ErrorString,
	PartKind, PartBase64, PartFile,
	ResultDecision, ResultModify, ResultModifiedRequest,
	RPCVersion, RPCID, RPCResultXorError, RPCMethod,
	SourceKind, TimeISO, URIAbsolute, MessageReasoning, ResourceMIME,
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
