package aos

import (
	_ "embed"

	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/ruledoc"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
)

// ruleDocs is the prose of the package's rules, by ID (rules.yaml).
var ruleDocs = ruledoc.Parse("lint/aos/rules.yaml", rulesYAML)

//go:embed rules.yaml
var rulesYAML []byte

// Schema validates a message against the draft-07 schema of its kind
// (schemas/aos/<kind>.schema.json, shared objects in common.schema.json).
var Schema = ruleDocs.Rule(lint.Rule{ID: "AOS-SCHEMA-001", Protocol: ID, Severity: lint.Error, Schema: true, Run: schemaRun})

// schemaRun is schema.Run without gojsonschema's summaries of unions that
// another error already explains (see preciseSchemaErrors).
func schemaRun(p *lint.Pass) { schema.RunFiltered(p, preciseSchemaErrors) }

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
