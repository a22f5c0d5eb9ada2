package aos_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform/engine/aos"
)

// FuzzGuardianHTTP: whatever arrives over HTTP (body, method, content type), the
// guardian, correct or playing one of its faults, answers one JSON-RPC 2.0 response object with exactly one of result and
// error, as application/json, and never panics.
func FuzzGuardianHTTP(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"steps/toolCallRequest","params":{"context":{},"toolCallRequest":{"executionId":"e1","toolId":"shell","inputs":[{"name":"command","value":"ls"}]}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"steps/toolCallResult","params":{"executionId":"e1","result":{"outputs":[],"isError":false}}}`,
		`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"steps/foo","params":[]}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"} trailing`,
		`{bad json`, ``, "\xff\xfe",
	} {
		f.Add([]byte(seed), "POST", "application/json", uint8(0))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), "GET", "text/plain", uint8(1))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), "POST", "application/json; charset=utf-8", uint8(3))
	faults := append([]string{""}, func() (names []string) {
		for _, f := range aos.Faults() {
			names = append(names, f.Name)
		}
		return
	}()...)
	f.Fuzz(func(t *testing.T, body []byte, method, ct string, fault uint8) {
		if !validMethod(method) {
			method = http.MethodPost
		}
		g := aos.NewGuardian(aos.DefaultPolicy())
		g.BodyLimit = 4096
		g.Fault = faults[int(fault)%len(faults)] // a faulty guardian still answers one JSON-RPC object
		req := httptest.NewRequest(method, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		rw := httptest.NewRecorder()
		g.ServeHTTP(rw, req)
		if got := rw.Header().Get("Content-Type"); got != "application/json" {
			t.Fatalf("Content-Type %q", got)
		}
		var resp map[string]json.RawMessage
		if err := json.Unmarshal(rw.Body.Bytes(), &resp); err != nil {
			t.Fatalf("answer is not a JSON object: %v: %q", err, rw.Body.String())
		}
		if string(resp["jsonrpc"]) != `"2.0"` {
			t.Fatalf("jsonrpc %s", resp["jsonrpc"])
		}
		if _, ok := resp["id"]; !ok {
			t.Fatal("no id")
		}
		_, hasRes := resp["result"]
		_, hasErr := resp["error"]
		if hasRes == hasErr {
			t.Fatalf("result and error: %q", rw.Body.String())
		}
	})
}

// validMethod keeps fuzzed methods to tokens httptest accepts.
func validMethod(m string) bool {
	if m == "" || len(m) > 16 {
		return false
	}
	return strings.Trim(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}
