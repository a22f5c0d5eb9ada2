package aos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/aopkit/aopkit/internal/memhttp"

	"github.com/aopkit/aopkit/conform/engine/aos"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
)

func newGuardian(t *testing.T) (*aos.Guardian, *aos.Server) {
	t.Helper()
	p, err := aos.LoadPolicy(fixtures + "/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	g := aos.NewGuardian(p)
	g.BodyLimit = 4096
	srv, err := g.Serve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return g, srv
}

func post(t *testing.T, url, ct, body string) (int, string, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("answer is not JSON: %s", data)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), out
}

const ctxJSON = `{"agent":{"id":"a1","name":"n","instructions":"i","version":"1","provider":{"name":"p","url":"https://p.example"}},"session":{"id":"s1"},"turnId":"t1","stepId":"st1","timestamp":"2025-01-24T15:30:45.123Z"}`

func toolReq(id, exec, tool, inputs string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"steps/toolCallRequest","params":{"context":` + ctxJSON +
		`,"toolCallRequest":{"executionId":"` + exec + `","toolId":"` + tool + `","inputs":` + inputs + `}}}`
}

func TestGuardianAnswers(t *testing.T) {
	tests := []struct {
		name     string
		ct, body string
		status   int
		code     int    // expected error code; 0 = success
		id       string // expected id, "null" for null
		decision string
	}{
		{"ping", "application/json", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"timestamp":"2025-01-24T15:30:45.123Z","timeout":5000}}`, 200, 0, "1", ""},
		{"ping with charset", "application/json; charset=utf-8", `{"jsonrpc":"2.0","id":"p","method":"ping","params":{"timestamp":"2025-01-24T15:30:45Z"}}`, 200, 0, "p", ""},
		{"ping timestamp at top level only", "application/json", `{"jsonrpc":"2.0","id":1,"method":"ping","timestamp":"2025-01-24T15:30:45.123Z"}`, 200, aos.CodeInvalidParams, "1", ""},
		{"parse error", "application/json", `{"jsonrpc":"2.0","id":1,`, 200, aos.CodeParseError, "null", ""},
		{"trailing data", "application/json", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"timestamp":"2025-01-24T15:30:45Z"}} x`, 200, aos.CodeParseError, "null", ""},
		{"not an object", "application/json", `[1]`, 200, aos.CodeInvalidRequest, "null", ""},
		{"no id", "application/json", `{"jsonrpc":"2.0","method":"ping","params":{"timestamp":"2025-01-24T15:30:45Z"}}`, 200, aos.CodeInvalidRequest, "null", ""},
		{"fractional id", "application/json", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 200, aos.CodeInvalidRequest, "null", ""},
		{"jsonrpc 1.0", "application/json", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, 200, aos.CodeInvalidRequest, "7", ""},
		{"no jsonrpc", "application/json", `{"id":7,"method":"ping"}`, 200, aos.CodeInvalidRequest, "7", ""},
		{"method not a string", "application/json", `{"jsonrpc":"2.0","id":7,"method":3}`, 200, aos.CodeInvalidRequest, "7", ""},
		{"unknown method", "application/json", `{"jsonrpc":"2.0","id":"x","method":"steps/foo","params":{}}`, 200, aos.CodeMethodNotFound, "x", ""},
		{"array params", "application/json", `{"jsonrpc":"2.0","id":8,"method":"ping","params":[]}`, 200, aos.CodeInvalidParams, "8", ""},
		{"mcp without message", "application/json", `{"jsonrpc":"2.0","id":72,"method":"protocols/MCP","params":{"reasoning":"no message"}}`, 200, aos.CodeInvalidParams, "72", ""},
		{"message citations spelling", "application/json", `{"jsonrpc":"2.0","id":"r4","method":"steps/message","params":{"context":` + ctxJSON + `,"message":{"role":"user","id":"m1","content":[{"kind":"text","text":"hi"}]},"citations":[]}}`, 200, aos.CodeInvalidParams, "r4", ""},
		{"message", "application/json", `{"jsonrpc":"2.0","id":"r4","method":"steps/message","params":{"context":` + ctxJSON + `,"message":{"role":"user","id":"m1","content":[{"kind":"text","text":"hi"}]},"citation":[{"kind":"site","url":"https://x.example"}]}}`, 200, 0, "r4", aosspec.Allow},
		{"message bad role", "application/json", `{"jsonrpc":"2.0","id":"r5","method":"steps/message","params":{"context":` + ctxJSON + `,"message":{"role":"bot","id":"m1","content":[{"kind":"text","text":"hi"}]},"citation":[]}}`, 200, aos.CodeInvalidParams, "r5", ""},
		{"tool call allowed", "application/json", toolReq("1", "e1", "search_email", `[{"name":"query","value":"x"}]`), 200, 0, "1", aosspec.Allow},
		{"tool call denied", "application/json", toolReq("2", "e2", "delete_email", `[{"name":"id","value":"m1"}]`), 200, 0, "2", aosspec.Deny},
		{"tool call modified", "application/json", toolReq("3", "e3", "send_email", `[{"name":"to","value":"a@external.example"}]`), 200, 0, "3", aosspec.Modify},
		{"tool call internal address", "application/json", toolReq("4", "e4", "send_email", `[{"name":"to","value":"a@company.example"}]`), 200, 0, "4", aosspec.Allow},
		{"tool call missing inputs", "application/json", `{"jsonrpc":"2.0","id":5,"method":"steps/toolCallRequest","params":{"context":` + ctxJSON + `,"toolCallRequest":{"executionId":"e5","toolId":"x"}}}`, 200, aos.CodeInvalidParams, "5", ""},
		{"result without request", "application/json", `{"jsonrpc":"2.0","id":6,"method":"steps/toolCallResult","params":{"context":` + ctxJSON + `,"executionId":"nope","result":{"outputs":[],"isError":false}}}`, 200, aos.CodeInvalidParams, "6", ""},
		{"result nested upstream style", "application/json", `{"jsonrpc":"2.0","id":6,"method":"steps/toolCallResult","params":{"context":` + ctxJSON + `,"toolCallResult":{"executionId":"e1","result":{"outputs":[],"isError":false}}}}`, 200, aos.CodeInvalidParams, "6", ""},
		{"mcp tools/call", "application/json", `{"jsonrpc":"2.0","id":70,"method":"protocols/MCP","params":{"message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_email","arguments":{"to":"x@external.example"}}}}}`, 200, 0, "70", aosspec.Modify},
		{"a2a", "application/json", `{"jsonrpc":"2.0","id":71,"method":"protocols/A2A","params":{"message":{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","parts":[{"kind":"text","text":"hi"}],"messageId":"m","kind":"message"}}}}}`, 200, 0, "71", aosspec.Allow},
		{"wrong content type", "text/plain", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"timestamp":"2025-01-24T15:30:45Z"}}`, 415, aos.CodeInvalidRequest, "1", ""},
		{"no content type", "", `{}`, 415, aos.CodeInvalidRequest, "null", ""},
		{"body too large", "application/json", `{"jsonrpc":"2.0","id":1,"method":"steps/memoryStore","params":{"memory":["` + strings.Repeat("x", 5000) + `"]}}`, 413, aos.CodeInvalidRequest, "null", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, srv := newGuardian(t)
			status, ct, r := post(t, srv.URL, tc.ct, tc.body)
			if status != tc.status {
				t.Errorf("HTTP %d, want %d", status, tc.status)
			}
			if ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if r["jsonrpc"] != "2.0" {
				t.Errorf("jsonrpc %v", r["jsonrpc"])
			}
			gotID := "null"
			if r["id"] != nil {
				gotID = strings.Trim(string(mustJSON(r["id"])), `"`)
			}
			if gotID != tc.id {
				t.Errorf("id %s, want %s", gotID, tc.id)
			}
			_, hasRes := r["result"]
			e, hasErr := r["error"].(map[string]any)
			if hasRes == hasErr {
				t.Errorf("result XOR error broken: %v", r)
			}
			if tc.code != 0 {
				if !hasErr || e["code"].(json.Number).String() != jsonNum(tc.code) {
					t.Errorf("answer %v, want error %d", r, tc.code)
				}
				return
			}
			res, _ := r["result"].(map[string]any)
			if tc.decision != "" && res["decision"] != tc.decision {
				t.Errorf("decision %v, want %s (%v)", res["decision"], tc.decision, res)
			}
			if tc.decision == aosspec.Modify {
				if _, ok := res["modifiedRequest"].(map[string]any); !ok {
					t.Errorf("modify without modifiedRequest: %v", res)
				}
			}
		})
	}
}

func jsonNum(n int) string { return string(mustJSON(n)) }

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestGuardianSequence(t *testing.T) {
	g, srv := newGuardian(t)
	post(t, srv.URL, "application/json", toolReq("1", "e1", "send_email", `[{"name":"to","value":"a@external.example"},{"name":"body","value":"b"}]`))
	_, _, r := post(t, srv.URL, "application/json", toolReq("2", "e1", "search_email", `[]`))
	if r["error"] == nil {
		t.Errorf("reused executionId accepted: %v", r)
	}
	d := g.Decisions()
	if len(d) != 1 || d[0].Decision != aosspec.Modify || d[0].ModArgs["to"] != "review@company.example" || d[0].ModArgs["body"] != "b" {
		t.Errorf("decisions %+v", d)
	}
	res := `{"jsonrpc":"2.0","id":3,"method":"steps/toolCallResult","params":{"context":` + ctxJSON + `,"executionId":"e1","result":{"outputs":[{"kind":"text","text":"sent"}],"isError":false}}}`
	if _, _, r := post(t, srv.URL, "application/json", res); r["result"] == nil {
		t.Errorf("result refused: %v", r)
	}
	if _, _, r := post(t, srv.URL, "application/json", res); r["error"] == nil {
		t.Errorf("second result for the same executionId accepted: %v", r)
	}
}

func TestPolicyFile(t *testing.T) {
	for _, bad := range []string{
		`{"rules":[{"id":"x","decision":"block"}]}`,
		`{"rules":[{"decision":"deny"}]}`,
		`{"rules":[{"id":"x","decision":"modify","tool":"t"}]}`,
		`{"rules":[{"id":"x","decision":"deny","set":{"a":1}}]}`,
		`{"rules":[{"id":"x","decision":"deny","args":{"a":{"regex":"("}}}]}`,
		`{"rules":[{"id":"x","decision":"deny","args":{"a":{}}}]}`,
		`{"rules":[{"id":"x","decision":"deny","method":"steps/foo"}]}`,
		`{"default":{"decision":"modify"}}`,
		`{"rulez":[]}`,
		`not json`,
	} {
		if _, err := aos.ParsePolicy([]byte(bad)); err == nil {
			t.Errorf("ParsePolicy(%s) accepted", bad)
		}
	}
	p, err := aos.ParsePolicy([]byte(`{"default":{"decision":"deny","message":"closed"},"rules":[{"id":"ok","tool":"*","args":{"n":{"equals":1}},"decision":"allow"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	g := aos.NewGuardian(p)
	srv, _ := g.Serve()
	defer srv.Close()
	if _, _, r := post(t, srv.URL, "application/json", toolReq("1", "e1", "any", `[{"name":"n","value":1.0}]`)); r["result"].(map[string]any)["decision"] != aosspec.Allow {
		t.Errorf("equals 1 vs 1.0: %v", r)
	}
	if _, _, r := post(t, srv.URL, "application/json", toolReq("2", "e2", "any", `[{"name":"n","value":2}]`)); r["result"].(map[string]any)["decision"] != aosspec.Deny {
		t.Errorf("default deny: %v", r)
	}
}

func TestProber(t *testing.T) {
	// The reference guardian, served in memory, probed on virtual time: every
	// probe passes, and the exchange is the reference transcript probe.jsonl,
	// written by the harness's recorder.
	p, err := aos.LoadPolicy(fixtures + "/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	var transcript bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		url, stop := memhttp.Serve(aos.NewGuardian(p))
		defer stop()
		h := aos.ProbeHarness(context.Background(), &transcript)
		for _, r := range (&aos.Prober{URL: url, Client: &http.Client{Transport: memhttp.Transport{}}, H: h}).Run(context.Background()) {
			if r.Verdict != "PASS" {
				t.Errorf("reference guardian fails %s: %s", r.ID, r.Detail)
			}
		}
		if err := h.End(nil); err != nil {
			t.Fatal(err)
		}
	})
	golden(t, "probe.jsonl", transcript.Bytes())
	// A guardian that allows everything and answers errors badly.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		w.Header().Set("Content-Type", "application/json")
		if json.Unmarshal(body, &req) != nil {
			io.WriteString(w, `{"jsonrpc":"2.0","id":0,"error":"parse error"}`)
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(mustJSON(req["id"]))+`,"result":{"decision":"block"}}`)
	}))
	defer bad.Close()
	failed := map[string]bool{}
	for _, r := range (&aos.Prober{URL: bad.URL}).Run(context.Background()) {
		if r.Verdict == "FAIL" {
			failed[r.ID] = true
		}
	}
	for _, c := range aos.ProbeChecks() {
		id := c.ID
		if !failed[id] {
			t.Errorf("bad guardian passes %s", id)
		}
	}
}

// TestSameID: a response id echoes the request id with the same value and JSON type.
func TestSameID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		got, want any
		ok        bool
	}{
		{json.Number("1"), 1, true}, {"1", 1, false}, {json.Number("2"), 1, false},
		{"probe-tool-1", "probe-tool-1", true}, {json.Number("1"), "1", false}, {nil, 1, false},
	} {
		if aos.SameID(c.got, c.want) != c.ok {
			t.Errorf("SameID(%#v, %#v) = %v", c.got, c.want, !c.ok)
		}
	}
	// A guardian that answers every id as a string fails the ping probe.
	str := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{"status":"connected","version":"0.1.0","timestamp":"2026-11-22T10:00:00Z"}}`)
	}))
	defer str.Close()
	for _, r := range (&aos.Prober{URL: str.URL}).Run(context.Background()) {
		if r.ID == "aos/orch/5.3/ping" && r.Verdict != "FAIL" {
			t.Errorf("id 1 answered as \"1\" passes the ping probe")
		}
	}
}

func FuzzPolicy(f *testing.F) {
	data, _ := os.ReadFile(fixtures + "/policy.json")
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		aos.ParsePolicy(data)
	})
}

// TestGuardianFaults: the correct guardian passes every probe; each fault of the
// reference guardian fails exactly the probe checks among its Fails (Faults),
// and every probe is seen failing under some fault (the guardian-mode yardstick
// catches every engine fault).
func TestGuardianFaults(t *testing.T) {
	probe := func(fault string) map[string]bool {
		failed := map[string]bool{}
		synctest.Test(t, func(t *testing.T) {
			g := aos.NewGuardian(aos.DefaultPolicy())
			g.Fault = fault
			url, stop := memhttp.Serve(g)
			defer stop()
			for _, r := range (&aos.Prober{URL: url, Client: &http.Client{Transport: memhttp.Transport{}}}).Run(context.Background()) {
				if r.Verdict != "PASS" {
					failed[r.ID] = true
				}
			}
		})
		return failed
	}
	if failed := probe(""); len(failed) > 0 {
		t.Errorf("the correct guardian fails %v", failed)
	}
	seen := map[string]bool{}
	probed := map[string]bool{}
	for _, c := range aos.ProbeChecks() {
		probed[c.ID] = true
	}
	for _, f := range aos.Faults() {
		failed := probe(f.Name)
		var want []string
		for _, id := range f.Fails {
			if probed[id] {
				want = append(want, id)
			}
		}
		if got := slices.Sorted(maps.Keys(failed)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("fault %s: the probe run fails %v, want the probes among its Fails %v", f.Name, got, want)
		}
		for id := range failed {
			seen[id] = true
		}
	}
	for _, r := range (&aos.Prober{URL: "http://" + memhttp.Host + "/none/", Client: &http.Client{Transport: memhttp.Transport{}}}).Run(context.Background()) {
		if !seen[r.ID] {
			t.Errorf("no guardian fault fails %s", r.ID)
		}
	}
}
