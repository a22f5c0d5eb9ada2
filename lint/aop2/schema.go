package aop2

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/schema"
)

// Schema validates a message against the schema of its kind (schemas/aop2/).
var Schema = &lint.Rule{
	ID: "AOP2-SCHEMA-001", Title: "message matches the schema of its kind", Protocol: ID, Severity: lint.Error,
	Spec:   "aop2 §2 Core TASK Envelope; §5 Executor Response; §6-§10 events",
	Doc:    "The message is validated against the draft-07 schema of its kind (aoplint schema aop2 TASK prints it): required members, types, and the v2.0.0 enum values the contract keeps (\"Enums and defaults remain as in v2.0.0\", §2.1). Where a precise rule reported a member already, the generic schema error for it is left out.",
	Bad:    `{"aop_version": "2.0.2-C", "message_type": "TASK", ..., "target": {"agent_name": "Emma", "role": "EXECUTOR", "provider": "OPENAI", "model": "gpt-5.3-codex"}, ...}`,
	Good:   `{"aop_version": "2.0.2-C", "message_type": "TASK", ..., "target": {"agent_name": "Emma", "role": "EXECUTOR", "provider": "CODEX", "model": "gpt-5.3-codex"}, ...}`,
	Schema: true,
	Run:    schema.Run,
}

func init() { lint.Register(Schema) }

// checkUnknownMembers reports the members the contract does not define (by the
// member shapes internal/schemagen computed from the schema files) that the
// walk of the tree found (walk.go).
func checkUnknownMembers(p *lint.Pass) { report(p, byUnknown) }
