package aos

import (
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// FuzzViewRead: the view's one pass over a message's members finds what
// root.Get finds for each key it holds (the last of a repeated key, nothing
// in a non-object), and its part lists' nodes are partNodes of the params found.
func FuzzViewRead(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"r1","method":"steps/message","params":{"message":{"content":[{"kind":"text","text":"hi"}]}}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"decision":"allow"}}`,
		`{"id":1,"id":"x","error":{"code":-32600},"error":null,"method":3,"params":[],"result":{},"jsonrpc":null}`,
		`[{"method":"ping"}]`, `"method"`, `{}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, _, err := jsonread.Parse(data)
		if err != nil || root == nil {
			return
		}
		m := &lint.Message{Root: root}
		v := viewOf(m)
		for _, c := range []struct {
			key string
			n   *jsonread.Node
		}{{"jsonrpc", v.jsonrpc}, {"id", v.id}, {"method", v.method}, {"params", v.params}, {"result", v.result}, {"error", v.err}} {
			if want := root.Get(c.key); c.n != want {
				t.Errorf("%s: the pass found %p, Get %p", c.key, c.n, want)
			}
		}
		if v.request() != root.Has("method") {
			t.Errorf("request() = %v, Has(method) %v", v.request(), root.Has("method"))
		}
		if got, want := *v.partNodes(), partNodes(root.Get("params")); got != want {
			t.Errorf("part lists %v, want %v", got, want)
		}
		if viewOf(m) != v {
			t.Error("a second viewOf made another view")
		}
	})
}

// TestSchemaFileTable: SchemaFile's tables answer as schemaFileOf for every
// kind and for strings that are none.
func TestSchemaFileTable(t *testing.T) {
	kinds := append(append([]string(nil), Methods...), KindResponse, KindPingResponse, KindError, KindBatch, KindScript, KindExecuted,
		"", "steps/message/", "Ping", "response:", "errors")
	for _, k := range kinds {
		if got, want := SchemaFile(k), schemaFileOf(k); got != want {
			t.Errorf("SchemaFile(%q) = %q, want %q", k, got, want)
		}
	}
}
