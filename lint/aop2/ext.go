package aop2

import "github.com/aopkit/aopkit/lint"

// ExtensionKey: keys of every extensions object start with x_.
var ExtensionKey = &lint.Rule{
	ID: "AOP2-EXT-001", Title: "extensions keys start with x_", Protocol: ID, Severity: lint.Error,
	Spec: "aop2 §3 Extensions Mechanism",
	Doc: "Any core object MAY carry an extensions object for vendor data; keys inside it MUST start with \"x_\" (§3). This holds for every extensions object at every level of the message " +
		"(top level, session, target, task, execution_policy, guard_rails, orchestration_metadata, execution_summary, ...). What an extension's value holds is the vendor's business and is not checked.",
	Bad:  `{"message_type": "RESPONSE", ..., "extensions": {"debug_id": "resp-uuid-1234"}}`,
	Good: `{"message_type": "RESPONSE", ..., "extensions": {"x_debug_id": "resp-uuid-1234"}}`,
	Run:  checkExtensionKeys,
}

func init() { lint.Register(ExtensionKey) }

// checkExtensionKeys reports the extensions keys the walk of the tree found
// (walk.go).
func checkExtensionKeys(p *lint.Pass) { report(p, byExtensions) }
