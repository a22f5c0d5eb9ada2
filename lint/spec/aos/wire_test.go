package aos

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/aopkit/aopkit/lint/spec/wire"
)

// member is the value at keys of v as a decoder with UseNumber reads it (the
// guardian's reading), and whether it is there.
func member(v any, keys ...string) (any, bool) {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// agreeWithMap holds DecodeRequest and DecodeResponse on body to a decoding
// into a map with UseNumber: the same bodies decode, and each member they
// read is there, of its type and of its value exactly when it is in the map.
func agreeWithMap(t *testing.T, body []byte) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	if err == nil {
		if _, terr := d.Token(); !errors.Is(terr, io.EOF) {
			err = ErrTrailing
		}
	}
	_, obj := v.(map[string]any)
	req, rerr := DecodeRequest(body)
	resp, perr := DecodeResponse(body)
	if want := err == nil && obj; (rerr == nil) != want || (perr == nil) != want {
		t.Fatalf("%q: DecodeRequest error %v, DecodeResponse error %v; a map decode: error %v, object %v", body, rerr, perr, err, obj)
	}
	if rerr != nil {
		return
	}
	str := func(name string, f Field[string], keys ...string) {
		x, has := member(v, keys...)
		s, ok := x.(string)
		if got, gotOK := f.Get(); got != s || gotOK != ok || f.Has() != has {
			t.Errorf("%q: %s = %q %v (present %v), the map has %q %v (present %v)", body, name, got, gotOK, f.Has(), s, ok, has)
		}
	}
	str("jsonrpc", req.JSONRPC, "jsonrpc")
	str("method", req.Method, "method")
	str("params.executionId", req.Params.V.ExecutionID, "params", "executionId")
	str("params.toolCallRequest.executionId", req.Params.V.ToolCallRequest.V.ExecutionID, "params", "toolCallRequest", "executionId")
	str("params.toolCallRequest.toolId", req.Params.V.ToolCallRequest.V.ToolID, "params", "toolCallRequest", "toolId")
	str("result.decision", resp.Result.V.Decision, "result", "decision")
	str("error.message", resp.Error.V.Message, "error", "message")
	id, hasID := member(v, "id")
	if !reflect.DeepEqual(req.ID.AnyNumber(), id) || req.ID.Has() != hasID {
		t.Errorf("%q: id %#v, the map has %#v", body, req.ID.AnyNumber(), id)
	}
	wantID, wantOK := RequestID(id)
	if gotID, gotOK := req.RequestID(); gotID != wantID || gotOK != (wantOK && hasID) {
		t.Errorf("%q: RequestID = %v %v, want %v %v", body, gotID, gotOK, wantID, wantOK)
	}
	params, _ := member(v, "params")
	if _, isObj := params.(map[string]any); isObj != req.Params.OK || !reflect.DeepEqual(req.Params.AnyNumber(), params) {
		t.Errorf("%q: params %#v (object %v), the map has %#v", body, req.Params.AnyNumber(), req.Params.OK, params)
	}
	if ctx, _ := member(v, "params", "context"); !reflect.DeepEqual(req.Params.V.Context.AnyNumber(), ctx) {
		t.Errorf("%q: params.context %#v, the map has %#v", body, req.Params.V.Context.AnyNumber(), ctx)
	}
	// The arguments as the guardian read them from the inputs before.
	args := map[string]any{}
	inputs, _ := member(v, "params", "toolCallRequest", "inputs")
	if ins, ok := inputs.([]any); ok {
		for _, x := range ins {
			if in, ok := x.(map[string]any); ok {
				if name, ok := in["name"].(string); ok {
					args[name] = in["value"]
				}
			}
		}
	}
	if got := req.Params.V.ToolCallRequest.V.Args(true); !reflect.DeepEqual(got, args) {
		t.Errorf("%q: Args = %#v, the map's inputs give %#v", body, got, args)
	}
}

var wireSeeds = []string{
	`{"jsonrpc":"2.0","id":7,"method":"steps/toolCallRequest","params":{"context":{"turnId":"t"},"toolCallRequest":{"executionId":"e-1","toolId":"shell","inputs":[{"name":"cmd","value":"ls"},{"name":"n","value":1.50},{"name":"cmd","value":null},{"value":3},7]}}}`,
	`{"jsonrpc":"2.0","id":"r-1","result":{"decision":"modify","message":"m","modifiedRequest":{"jsonrpc":"2.0","id":1,"method":"steps/toolCallRequest","params":{"toolCallRequest":{"executionId":"e","toolId":"t","inputs":[]}}}}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid JSON-RPC Request","data":"x"}}`,
	`{"jsonrpc":1,"ID":9,"Method":"ping","id":12345678901234567890,"params":null}`,
	`{"id":1.5,"params":[1],"method":"steps/toolCallResult"}`,
	`{"id":9007199254740993,"params":{"executionId":3,"toolCallRequest":"x","n":1e400}}`,
	`{"a":1} {"b":2}`, `{"a":1} x`, `[{"jsonrpc":"2.0"}]`, `null`, `{`, ``,
}

// TestWireAgreesWithMap: the seeds, read by the decoders and into a map.
func TestWireAgreesWithMap(t *testing.T) {
	for _, s := range wireSeeds {
		agreeWithMap(t, []byte(s))
	}
}

// FuzzDecodeRequest: DecodeRequest and DecodeResponse never panic and agree
// with a decoding into a map.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range wireSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { agreeWithMap(t, body) })
}

// TestSchemaMembers: the json tags of the wire structs are the members the
// schemas (schemas/aos/common.schema.json) name for them, no more and no less.
func TestSchemaMembers(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "schemas", "aos", "common.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Definitions map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	props := func(defs ...string) []string {
		var out []string
		for _, d := range defs {
			if _, ok := s.Definitions[d]; !ok {
				t.Fatalf("common.schema.json has no definition %s", d)
			}
			for k := range s.Definitions[d].Properties {
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	for typ, want := range map[reflect.Type][]string{
		reflect.TypeFor[Request]():           {"id", "jsonrpc", "method", "params"}, // §3.12.1
		reflect.TypeFor[Response]():          {"error", "id", "jsonrpc", "result"},  // §3.12.2
		reflect.TypeFor[Params]():            props("AgentTriggerParams", "KnowledgeRetrievalParams", "MemoryParams", "MessageParams", "ToolCallRequestParams", "ToolCallResultParams", "WrappedParams", "PingParams"),
		reflect.TypeFor[Result]():            props("AOSSuccessResult", "PingRequestResult"),
		reflect.TypeFor[RPCError]():          props("JSONRPCError"),
		reflect.TypeFor[ToolCallRequest]():   props("ToolCallRequest"),
		reflect.TypeFor[ToolArgumentValue](): props("ToolArgumentValue"),
	} {
		got := slices.Clone(wire.MemberNames(typ))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s has fields for %v, the schema names %v", typ.Name(), got, want)
		}
	}
}
