package aof

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/schema"
)

// SchemaRule validates every AOF message against the schema of its kind.
var SchemaRule = &lint.Rule{
	ID: "AOF-SCHEMA-001", Title: "message matches the AOF/1 schema of its kind", Protocol: "aof", Severity: lint.Error, Schema: true,
	Spec: "aof-1 §Protocol Envelope; §Message Types; §Resume Protocol Artifacts",
	Doc: "Each message is validated against the draft-07 schema of its kind (schemas/aof/): the envelope fields and the payload of its " +
		"type, or the fields of a run artifact. Required members, types and enums come from the guide's tables; the router rejects " +
		"envelopes that fail (protocol.message.rejected, invalid_envelope). More precise AOF rules replace the schema's diagnostics where they apply.",
	Bad:  `{"protocol": "aof", "version": 1, "type": "completion.report", ..., "payload": {"outcome": "done"}}`,
	Good: `{"protocol": "aof", "version": 1, "type": "completion.report", ..., "payload": {"outcome": "done", "summaryRef": "outputs/summary.md", "tests": {"total": 1, "passed": 1, "failed": 0}, "notes": "ok"}}`,
	Run:  schema.Run,
}
