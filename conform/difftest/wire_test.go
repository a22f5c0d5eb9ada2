package difftest

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// wireCorpus is every JSON object of protocol p in the fixtures, the spec
// corpus, the reference transcripts (the msg of p's records) and the upstream
// reference, each as its own JSON text, by where it comes from.
func wireCorpus(t testing.TB, p string) map[string][]byte {
	t.Helper()
	msgs := map[string][]byte{}
	add := func(where string, b []byte) {
		if rec, ok := decodeRecord(b); ok {
			if rec.Protocol != p || rec.Msg == nil {
				return
			}
			b = rec.Msg
		}
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
			msgs[where] = b
		}
	}
	walkCorpus(t, p, add)
	return msgs
}

// TestOrchmsgWireCorpus: lint/spec/orchmsg.Decode reads every orchmsg message of
// the corpus that is a JSON object, and for each message of a known type it
// agrees with aoplint: ORCH-BASE-001 exactly when the id is no non-empty
// string, ORCH-BASE-002 exactly when the timestamp is no zoned ISO 8601
// string, ORCH-RESP-001 (responses) exactly when the correlationId is no
// non-empty string, and a message ORCH-SCHEMA-001 passes has a payload and an
// error that are objects when present.
func TestOrchmsgWireCorpus(t *testing.T) {
	msgs := wireCorpus(t, "orchmsg")
	typed := 0
	fired := map[string]int{}
	for where, b := range msgs {
		var v any
		if json.Unmarshal(b, &v) != nil {
			continue // not JSON, or no any: no message to Decode either
		}
		m, err := spec.Decode(b)
		if _, obj := v.(map[string]any); (err == nil) != obj {
			t.Errorf("%s: Decode error %v for a JSON value that is an object: %v", where, err, obj)
			continue
		}
		if err != nil || !spec.IsType(m.Type.V) {
			continue
		}
		typed++
		found := map[string]bool{}
		for _, d := range linter.LintBytes("message.json", b, linter.Options{Protocol: "orchmsg"}).Diagnostics {
			found[d.Rule] = true
		}
		for r := range found {
			fired[r]++
		}
		id, idOK := m.ID.Get()
		if bad := !idOK || id == ""; bad != found["ORCH-BASE-001"] {
			t.Errorf("%s: id %s: ORCH-BASE-001 %v, Decode says bad %v", where, m.ID.Raw, found["ORCH-BASE-001"], bad)
		}
		ts, tsOK := m.Timestamp.Get()
		_, zone, parsed := spec.ParseTime(ts)
		if bad := !tsOK || !parsed || isZero(zone); bad != found["ORCH-BASE-002"] {
			t.Errorf("%s: timestamp %s: ORCH-BASE-002 %v, Decode says bad %v", where, m.Timestamp.Raw, found["ORCH-BASE-002"], bad)
		}
		if spec.Family(m.Type.V) == spec.Response {
			c, ok := m.CorrelationID.Get()
			if bad := !ok || c == ""; bad != found["ORCH-RESP-001"] {
				t.Errorf("%s: correlationId %s: ORCH-RESP-001 %v, Decode says bad %v", where, m.CorrelationID.Raw, found["ORCH-RESP-001"], bad)
			}
		}
		if !found["ORCH-SCHEMA-001"] && (m.Payload.Has() && !m.Payload.OK || m.Error.Has() && !m.Error.OK) {
			t.Errorf("%s: ORCH-SCHEMA-001 passes a payload %s or error %s that Decode reads as no object", where, m.Payload.Raw, m.Error.Raw)
		}
	}
	if typed < 100 {
		t.Fatalf("only %d orchmsg messages of a known type in %d: the walk is broken", typed, len(msgs))
	}
	t.Logf("%d messages, %d of a known type; %v", len(msgs), typed, fired)
}

// isZero reports whether v is its type's zero value: isotime.ZoneNone, for a
// zone spec.ParseTime returns (lint/internal is not importable here).
func isZero[T comparable](v T) bool {
	var zero T
	return v == zero
}

// TestAOSWireCorpus: lint/spec/aos reads every aos message of the corpus that
// is one JSON object (DecodeRequest with a method, DecodeResponse without),
// and agrees with aoplint: AOS-RPC-001 exactly when jsonrpc is not the string
// "2.0"; on a request, AOS-RPC-002 exactly when its id is no string or
// integer (Request.RequestID) and AOS-RPC-004 exactly when its method is a
// string that is none of the AOS methods (aside from the dialects aoplint
// names otherwise); on a response, AOS-RPC-003 exactly when it has both or
// neither of result and error.
func TestAOSWireCorpus(t *testing.T) {
	msgs := wireCorpus(t, "aos")
	reqs, resps := 0, 0
	fired := map[string]int{}
	for where, b := range msgs {
		if !json.Valid(b) {
			continue
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(b, &probe) != nil {
			continue
		}
		if !slices.ContainsFunc([]string{"jsonrpc", "id", "method", "result", "error"}, func(k string) bool { return probe[k] != nil }) {
			continue // no JSON-RPC message: the binding's executed line, the work script
		}
		found := map[string]bool{}
		for _, d := range linter.LintBytes("message.json", b, linter.Options{Protocol: "aos"}).Diagnostics {
			found[d.Rule] = true
			fired[d.Rule]++
		}
		version := func(jsonrpc aosspec.Field[string]) {
			if bad := !jsonrpc.OK || jsonrpc.V != "2.0"; bad != found["AOS-RPC-001"] {
				t.Errorf("%s: jsonrpc %s: AOS-RPC-001 %v, the struct says bad %v", where, jsonrpc.Raw, found["AOS-RPC-001"], bad)
			}
		}
		decoded := func(err error) bool {
			if err != nil {
				t.Errorf("%s: %v", where, err)
			}
			return err == nil
		}
		if _, isReq := probe["method"]; isReq {
			req, err := aosspec.DecodeRequest(b)
			if !decoded(err) {
				continue
			}
			reqs++
			version(req.JSONRPC)
			if _, ok := req.RequestID(); ok == found["AOS-RPC-002"] {
				t.Errorf("%s: id %s: AOS-RPC-002 %v, RequestID ok %v", where, req.ID.Raw, found["AOS-RPC-002"], ok)
			}
			m, isStr := req.Method.Get()
			if bad := isStr && !aosspec.IsMethod(m); bad != found["AOS-RPC-004"] && !found["AOS-DIALECT-004"] {
				t.Errorf("%s: method %s: AOS-RPC-004 %v, the struct says unknown %v", where, req.Method.Raw, found["AOS-RPC-004"], bad)
			}
			continue
		}
		resp, err := aosspec.DecodeResponse(b)
		if !decoded(err) {
			continue
		}
		resps++
		version(resp.JSONRPC)
		if bad := resp.Result.Has() == resp.Error.Has(); bad != found["AOS-RPC-003"] {
			t.Errorf("%s: result %v, error %v: AOS-RPC-003 %v", where, resp.Result.Has(), resp.Error.Has(), found["AOS-RPC-003"])
		}
	}
	if reqs < 50 || resps < 20 {
		t.Fatalf("only %d requests and %d responses in %d messages: the walk is broken", reqs, resps, len(msgs))
	}
	t.Logf("%d messages: %d requests, %d responses; %v", len(msgs), reqs, resps, fired)
}
