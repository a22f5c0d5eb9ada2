package difftest

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks" // aos/3.12.1/jsonrpc-request
	"github.com/aopkit/aopkit/lint/linter"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
)

// TestAOSRequestIDCheckAgreesWithLint: the check aos/3.12.1/jsonrpc-request
// and aoplint's AOS-RPC-002 take the same request ids. Every aos request of the
// corpus with jsonrpc "2.0" and an AOS method (the check's other two tests)
// as it is, and the first of each method (by where it comes from) with its id
// replaced by each of a list of ids (integers past 2^53 and past int64,
// fractions, exponents, strings, null, other types, and no id), judged alone:
// the check fails exactly when the rule reports.
func TestAOSRequestIDCheckAgreesWithLint(t *testing.T) {
	c := conform.LookupCheck("aos/3.12.1/jsonrpc-request")
	if c == nil {
		t.Fatal("no check aos/3.12.1/jsonrpc-request")
	}
	ids := []string{
		`9007199254740993`, `-9007199254740993`, `9223372036854775807`, `9223372036854775808`,
		`-9223372036854775809`, `123456789012345678901234567890`, `1.5`, `1.0`, `-0`, `1e3`,
		`1E2`, `0.5e1`, `1e20`, `9007199254740992.0`, `1e400`, `"x"`, `""`, `null`, `true`,
		`[]`, `{}`, ``,
	}
	corpus := wireCorpus(t, "aos")
	judged, rejected := 0, 0
	mutated := map[string]bool{}
	for _, where := range slices.Sorted(maps.Keys(corpus)) {
		b := corpus[where]
		var members map[string]json.RawMessage
		if json.Unmarshal(b, &members) != nil || members["method"] == nil {
			continue
		}
		var method, version string
		if json.Unmarshal(members["method"], &method) != nil || !aosspec.IsMethod(method) ||
			json.Unmarshal(members["jsonrpc"], &version) != nil || version != "2.0" {
			continue
		}
		bodies := [][]byte{b}
		for _, id := range ids {
			if mutated[method] {
				break
			}
			if id == "" {
				delete(members, "id")
			} else {
				members["id"] = json.RawMessage(id)
			}
			v, err := json.Marshal(members)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			bodies = append(bodies, v)
		}
		mutated[method] = true
		for _, body := range bodies {
			var obj map[string]any
			if json.Unmarshal(body, &obj) != nil {
				continue // a number past float64's range anywhere: the check's "no JSON object"
			}
			rule := false
			for _, d := range linter.LintBytes("message.json", body, linter.Options{Protocol: "aos"}).Diagnostics {
				rule = rule || d.Rule == "AOS-RPC-002"
			}
			s := &conform.Session{Scenario: &conform.Scenario{ID: "s"}, Scale: 1, Records: []conform.Record{
				{Seq: 1, From: conform.ActorAgent, Stream: "http", Key: method, Msg: body, Attempt: 1},
			}}
			o := c.Run(s)
			judged++
			if o.Verdict == conform.Fail {
				rejected++
			}
			if (o.Verdict == conform.Fail) != rule {
				t.Errorf("%s: %s: the check says %s (%s), AOS-RPC-002 reported %v", where, body, o.Verdict, o.Message, rule)
			}
		}
	}
	if judged < 300 {
		t.Fatalf("only %d requests judged: the walk is broken", judged)
	}
	t.Logf("%d requests judged, %d rejected", judged, rejected)
}
