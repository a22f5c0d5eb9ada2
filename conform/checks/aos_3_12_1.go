package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
)

var aosJSONRPCRequest = &conform.Check{
	ID:          "aos/3.12.1/jsonrpc-request",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §3.12.1",
	Requirement: "jsonrpc MUST be exactly \"2.0\"; id MUST contain a String or Number(Integer) value; method is one of the AOS methods (§4); ids are not reused.",
	Lint:        []string{"AOS-RPC-001", "AOS-RPC-002", "AOS-RPC-004", "AOS-SEQ-011"},
	After:       []string{"aos/2.2/content-type"},
	Bad:         `{"jsonrpc":"1.0","id":1,"method":"steps/toolCall",...}`,
	Good:        `{"jsonrpc":"2.0","id":7,"method":"steps/toolCallRequest","params":{...}}`,
	Run: func(s *conform.Session) conform.Outcome {
		reqs := aosRequests(s, "")
		if len(reqs) == 0 {
			return conform.Failf("the agent never called the guardian")
		}
		ids := map[string]int{}
		for _, r := range reqs {
			// A body a decode into any does not read (no JSON, or a number past
			// float64's range) is none: r.Obj.
			if r.Obj() == nil {
				return conform.Mismatch(fmt.Sprintf("record %d is not a JSON object", r.Seq), "a JSON-RPC request object", conform.Clip(recordText(r), 200)).At(r.Seq)
			}
			m := aosRequest(s, r)
			// The id by its text (json.Number), as aoplint's AOS-RPC-002 and the
			// guardian read it: any integer within int64, 9007199254740993
			// included (a float64 would make it 2^53 and refuse it), or an
			// integral number below 2^53 (1.0, 1e3); not 1.5, null or absent.
			id := m.ID.AnyNumber()
			rid, idOK := m.RequestID()
			if m.JSONRPC.V != "2.0" || !aosspec.IsMethod(m.Method.V) || !idOK {
				return conform.Mismatch(fmt.Sprintf("record %d is not a valid AOS JSON-RPC request", r.Seq), map[string]any{"jsonrpc": "2.0", "method": "an AOS method (steps/*, protocols/*, ping)", "id": "a string or integer"}, map[string]any{"jsonrpc": m.JSONRPC.Any(), "method": m.Method.Any(), "id": id}).At(r.Seq)
			}
			k := rid.String() // "1" and 1 are two ids
			if prev, dup := ids[k]; dup {
				return conform.Mismatch(fmt.Sprintf("request id %v reused (records %d and %d)", id, prev, r.Seq), "a new id per request", k+" twice").At(prev, r.Seq)
			}
			ids[k] = r.Seq
		}
		return conform.Passf("%d valid JSON-RPC requests", len(reqs))
	},
}
