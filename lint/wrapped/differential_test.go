package wrapped

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// The differential test: the verdicts of CheckMCP and CheckA2A (which pick the
// definition of a message's method or kind) against an oracle that asks the same
// official schemas through their published unions only (JSONRPCMessage,
// ClientRequest|ServerRequest, A2ARequest, JSONRPCResponse, ...), with no method
// dispatch of aoplint's. The corpus is the published examples and the examples of
// the MCP and A2A documents in testdata/, each with every single-member mutation:
// a member removed, its value replaced by a value of another type, a string
// replaced by an unknown word.

// mcpOracle: valid when one revision's JSONRPCMessage accepts the message and,
// for a method the revision defines, its ClientRequest|ServerRequest (a request,
// framed by JSONRPCRequest: JSON-RPC 2.0 makes a message with an id a request) or
// ClientNotification|ServerNotification (a notification) union does too.
func mcpOracle(t *testing.T, msg *jsonread.Node) bool {
	for _, r := range MCP {
		if !accepts(t, r, "JSONRPCMessage", msg) {
			continue
		}
		m := msg.Get("method")
		if m == nil || !m.IsString() || r.Method(m.Str) == "" {
			if m != nil && m.IsString() && mcpKnown(m.Str) {
				continue // another revision's method: judged there
			}
			return true
		}
		if strings.HasSuffix(r.Method(m.Str), "Notification") {
			if !msg.Has("id") && (accepts(t, r, "ClientNotification", msg) || accepts(t, r, "ServerNotification", msg)) {
				return true
			}
			continue // with an id it is a request, and no request has this method
		}
		if accepts(t, r, "JSONRPCRequest", msg) && (accepts(t, r, "ClientRequest", msg) || accepts(t, r, "ServerRequest", msg)) {
			return true
		}
	}
	return false
}

// a2aOracle: valid when one revision accepts the message as one of its requests
// (A2ARequest), responses (JSONRPCResponse), or objects.
func a2aOracle(t *testing.T, msg *jsonread.Node) bool {
	for _, r := range A2A {
		switch {
		case !IsA2ARPC(msg):
			for _, d := range []string{"Message", "Task", "TaskStatusUpdateEvent", "TaskArtifactUpdateEvent", "Artifact", "AgentCard"} {
				if accepts(t, r, d, msg) {
					return true
				}
			}
		case msg.Has("method"):
			if m := msg.Get("method"); m.IsString() && !A2AKnown(m.Str) {
				if accepts(t, r, "JSONRPCRequest", msg) {
					return true
				}
			} else if accepts(t, r, "A2ARequest", msg) {
				return true
			}
		default:
			if accepts(t, r, "JSONRPCResponse", msg) {
				return true
			}
		}
	}
	return false
}

func accepts(t *testing.T, r *Revision, def string, msg *jsonread.Node) bool {
	es, err := r.Validate(def, msg.Interface())
	if err != nil {
		t.Fatalf("%s %s: %v", r.Name, def, err)
	}
	return len(es) == 0
}

func hasError(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == lint.Error {
			return true
		}
	}
	return false
}

func TestDifferential(t *testing.T) {
	for _, c := range []struct {
		dir    string
		check  func(*jsonread.Node) []Finding
		oracle func(*testing.T, *jsonread.Node) bool
	}{
		{"testdata/mcp", CheckMCP, mcpOracle},
		{"testdata/a2a", CheckA2A, a2aOracle},
	} {
		seeds, _ := filepath.Glob(filepath.Join(c.dir, "*.json"))
		if len(seeds) < 4 {
			t.Fatalf("%s: %d seeds", c.dir, len(seeds))
		}
		var n, rejected int
		for _, seed := range seeds {
			data, err := os.ReadFile(seed)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatalf("%s: %v", seed, err)
			}
			if fs := c.check(parse(t, data)); hasError(fs) {
				t.Errorf("%s: the published example is rejected: %+v", seed, fs)
			}
			for _, m := range mutations(v) {
				b, _ := json.Marshal(m.value)
				msg := parse(t, b)
				got := !hasError(c.check(msg))
				want := c.oracle(t, msg)
				n++
				if !want {
					rejected++
				}
				if got != want {
					t.Errorf("%s, %s: aoplint says valid=%v, the official schemas valid=%v\n%s\n%+v", filepath.Base(seed), m.what, got, want, b, c.check(msg))
				}
			}
		}
		t.Logf("%s: %d seeds, %d mutants, %d rejected by the official schemas", c.dir, len(seeds), n, rejected)
		if rejected == 0 || rejected == n {
			t.Errorf("%s: the mutants do not separate: %d of %d rejected", c.dir, rejected, n)
		}
	}
}

func parse(t *testing.T, b []byte) *jsonread.Node {
	n, _, err := jsonread.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

type mutant struct {
	what  string
	value any
}

// mutations returns v with one change each: every member of every object removed
// (the jsonrpc frame's too), every value replaced by one of another type, every
// string replaced by an unknown word.
func mutations(v any) []mutant {
	var out []mutant
	var walk func(path string, x any, set func(any) any)
	walk = func(path string, x any, set func(any) any) {
		for _, r := range []any{"bogus-value", 42.5, true, nil, []any{}, map[string]any{}} {
			if sameType(r, x) {
				continue
			}
			if s, ok := x.(string); ok && s == "bogus-value" {
				continue
			}
			out = append(out, mutant{path + " := " + typeName(r), set(r)})
		}
		switch x := x.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				k := k
				out = append(out, mutant{path + "/" + k + " removed", set(without(x, k))})
				walk(path+"/"+k, x[k], func(r any) any { return set(with(x, k, r)) })
			}
		case []any:
			for i := range x {
				i := i
				walk(path+"/"+itoa(i), x[i], func(r any) any {
					y := append([]any(nil), x...)
					y[i] = r
					return set(y)
				})
			}
		}
	}
	walk("", v, func(r any) any { return r })
	return out
}

func without(m map[string]any, k string) map[string]any {
	out := make(map[string]any, len(m))
	for kk, vv := range m {
		if kk != k {
			out[kk] = vv
		}
	}
	return out
}

func with(m map[string]any, k string, v any) map[string]any {
	out := without(m, k)
	out[k] = v
	return out
}

func sameType(a, b any) bool {
	switch a.(type) {
	case string:
		_, ok := b.(string)
		return ok && false // a string is always replaced by the unknown word
	case float64:
		_, ok := b.(float64)
		return ok
	case bool:
		_, ok := b.(bool)
		return ok
	case nil:
		return b == nil
	case []any:
		_, ok := b.([]any)
		return ok
	default:
		_, ok := b.(map[string]any)
		return ok
	}
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a fractional number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case []any:
		return "an empty array"
	default:
		return "an empty object"
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
