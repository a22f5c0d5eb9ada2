package aop2

import (
	"strconv"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

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

func checkExtensionKeys(p *lint.Pass) {
	walkExtensions(p, p.Msg.Root, make(ptrPath, 0, 16))
}

// walkExtensions finds every extensions object outside vendor data.
func walkExtensions(p *lint.Pass, n *jsonread.Node, at ptrPath) {
	if n == nil || len(at) > 64 {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		for _, m := range n.Members {
			if m.Key == "extensions" {
				if m.Value.Kind == jsonread.Object {
					for _, x := range m.Value.Members {
						if !strings.HasPrefix(x.Key, "x_") {
							p.Reportf(append(at, m.Key, x.Key).String(), "extensions key %q must start with \"x_\", such as %q (§3)", x.Key, "x_"+x.Key)
						}
					}
				}
				continue // the values are vendor data
			}
			if m.Value.Kind == jsonread.Object || m.Value.Kind == jsonread.Array {
				walkExtensions(p, m.Value, append(at, m.Key))
			}
		}
	case jsonread.Array:
		for i, it := range n.Items {
			if it.Kind == jsonread.Object || it.Kind == jsonread.Array {
				walkExtensions(p, it, append(at, strconv.Itoa(i)))
			}
		}
	}
}
