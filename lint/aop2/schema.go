package aop2

import (
	"strconv"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/schema/generated"
)

// Schema validates a message against the schema of its kind (schemas/aop2/).
var Schema = &lint.Rule{
	ID: "AOP2-SCHEMA-001", Title: "message matches the schema of its kind", Protocol: ID, Severity: lint.Error,
	Spec:   "aop2 §2 Core TASK Envelope; §5 Executor Response; §6-§10 events",
	Doc:    "The message is validated against the draft-07 schema of its kind (aoplint schema aop2 TASK prints it): required members, types, and the v2.0.0 enum values the contract keeps (\"Enums and defaults remain as in v2.0.0\", §2.1). Where a precise rule reported a member already, the generic schema error for it is left out.",
	Bad:    `{"aop_version": "2.0.2-C", "message_type": "TASK", ..., "target": {"agent_name": "Emma", "role": "EXECUTOR", "provider": "OPENAI", "model": "gpt-5.3-codex"}, ...}`,
	Good:   `{"aop_version": "2.0.2-C", "message_type": "TASK", ..., "target": {"agent_name": "Emma", "role": "EXECUTOR", "provider": "CODEX", "model": "gpt-5.3-codex"}, ...}`,
	Schema: true,
	Run:    linter.SchemaRun,
}

func init() { lint.Register(Schema) }

func checkUnknownMembers(p *lint.Pass) {
	file := SchemaFile(p.Msg.Kind)
	if file == "" || p.Msg.Kind == KindEvent || p.Msg.Root == nil {
		return
	}
	// The members the contract defines, computed from the schema files by
	// internal/schemagen (no schema is decoded at run time for this).
	walkUnknown(p, generated.Members(file), p.Msg.Root, make(ptrPath, 0, 16))
}

func walkUnknown(p *lint.Pass, sh *generated.Shape, n *jsonread.Node, at ptrPath) {
	if sh == nil || n == nil || len(at) > 32 {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		if !sh.Object {
			return
		}
		for _, m := range n.Members {
			if ps, ok := sh.Member(m.Key); ok {
				if m.Key != "extensions" && ps != nil && (m.Value.Kind == jsonread.Object || m.Value.Kind == jsonread.Array) {
					walkUnknown(p, ps, m.Value, append(at, m.Key))
				}
				continue
			}
			if sh.Open || (len(at) == 0 && m.Key == "task_status" && p.Msg.Kind == KindTask) {
				continue // task_status in a TASK is AOP2-ENVELOPE-003's
			}
			p.Reportf(append(at, m.Key).String(), "unknown member %q: the contract does not define it here; put vendor data in extensions under an x_ key, such as \"extensions\": {\"x_%s\": ...} (§3). Kept as a warning: §1.1 falls back conservatively on unknown fields (the upstream Python schema rejected them)", m.Key, strings.TrimPrefix(m.Key, "x_"))
		}
	case jsonread.Array:
		if sh.Items == nil {
			return
		}
		for i, item := range n.Items {
			walkUnknown(p, sh.Items, item, append(at, strconv.Itoa(i)))
		}
	}
}
