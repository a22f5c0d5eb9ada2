package wrapped

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

func findings(t *testing.T, check func(*jsonread.Node) []Finding, msg string) []Finding {
	t.Helper()
	n, _, err := jsonread.Parse([]byte(msg))
	if err != nil {
		t.Fatalf("parse %s: %v", msg, err)
	}
	return check(n)
}

func worst(fs []Finding) lint.Severity {
	s := lint.Severity(-1)
	for _, f := range fs {
		if f.Severity > s {
			s = f.Severity
		}
	}
	return s
}

// TestResponseResultAndError: a JSON-RPC response sets result or error, never
// both (JSON-RPC 2.0 §5; MCP "A response MUST NOT set both"; A2A likewise). The
// official schemas' open anyOf lets such a message through, so a rule says it.
func TestResponseResultAndError(t *testing.T) {
	for _, tt := range []struct {
		name  string
		check func(*jsonread.Node) []Finding
		msg   string
		bad   bool
	}{
		{"MCP both", CheckMCP, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32603,"message":"Internal error"}}`, true},
		{"MCP both, null error", CheckMCP, `{"jsonrpc":"2.0","id":1,"result":{"content":[]},"error":null}`, true},
		{"MCP result", CheckMCP, `{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{"MCP error", CheckMCP, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`, false},
		{"A2A both", CheckA2A, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"}},"error":{"code":-32001,"message":"Task not found"}}`, true},
		{"A2A result", CheckA2A, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"}}}`, false},
		{"A2A error", CheckA2A, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`, false},
	} {
		fs := findings(t, tt.check, tt.msg)
		both := false
		for _, f := range fs {
			both = both || (f.Severity == lint.Error && strings.Contains(f.Message, "both"))
		}
		if both != tt.bad {
			t.Errorf("%s: an error about setting both: %v, want %v (%+v)", tt.name, both, tt.bad, fs)
		}
		if !tt.bad && worst(fs) >= lint.Warning {
			t.Errorf("%s: %+v, want clean", tt.name, fs)
		}
	}
}

// TestA2ATasksSend: tasks/send is A2A v0.1's method (v0.2 renamed it
// message/send). With v0.2-style params (a Message with messageId and kind, parts
// with kind, no task id) it is invalid under every A2A revision: an error that
// names message/send. With v0.1's own params it is a message of a revision
// aoplint does not carry: an info, never an error.
func TestA2ATasksSend(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  string
		want lint.Severity
	}{
		{"v0.2-style params", `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"message":{"role":"user","parts":[{"kind":"text","text":"hi"}],"messageId":"m1","kind":"message"}}}`, lint.Error},
		{"v0.2-style params with a task id", `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"t1","message":{"role":"user","parts":[{"kind":"text","text":"hi"}],"messageId":"m1","kind":"message"}}}`, lint.Error},
		{"no params", `{"jsonrpc":"2.0","id":1,"method":"tasks/send"}`, lint.Error},
		{"v0.1 params", `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"t1","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}`, lint.Info},
		{"v0.1 sendSubscribe", `{"jsonrpc":"2.0","id":1,"method":"tasks/sendSubscribe","params":{"id":"t1","sessionId":"s1","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}`, lint.Info},
		{"message/send", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","parts":[{"kind":"text","text":"hi"}],"messageId":"m1","kind":"message"}}}`, lint.Severity(-1)},
	} {
		fs := findings(t, CheckA2A, tt.msg)
		if got := worst(fs); got != tt.want {
			t.Errorf("%s: worst finding %v, want %v: %+v", tt.name, got, tt.want, fs)
		}
		if tt.want == lint.Error {
			named := false
			for _, f := range fs {
				named = named || strings.Contains(f.Message, "message/send")
			}
			if !named {
				t.Errorf("%s: no finding names message/send: %+v", tt.name, fs)
			}
		}
	}
}
