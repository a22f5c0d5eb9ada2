package difftest

import (
	"bytes"
	"encoding/json"
	"testing"

	aosengine "github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/lint/linter"
)

// aosRequests are the JSON-RPC requests (an object with a method) of every
// corpus: fixtures/aos, the reference transcripts, the spec corpus and the
// upstream reference messages (../shared/reference/upstream/aos, when there),
// a transcript record's message in place of the record.
func aosRequests(t *testing.T) map[string][]byte {
	msgs := map[string][]byte{}
	add := func(where string, b []byte) {
		if rec, ok := decodeRecord(b); ok {
			b = rec.Msg
		}
		var head map[string]json.RawMessage
		if json.Unmarshal(b, &head) != nil || head["method"] == nil {
			return
		}
		msgs[where] = bytes.TrimSpace(b)
	}
	walkCorpus(t, "aos", add)
	return msgs
}

// TestAOSGuardianRefusesIffLintError: on every request of the corpora the
// reference guardian (conform/engine/aos.Admits, the check ServeHTTP makes
// before it decides) answers a JSON-RPC error exactly when aoplint reports an
// error of one message in the request, modulo aosengine.Exceptions
// (aosengine.Counts: the rules of a session aside, an error refuses unless an
// exception answers it, any finding an exception makes refuse refuses).
func TestAOSGuardianRefusesIffLintError(t *testing.T) {
	admitted, refused := 0, 0
	for where, msg := range aosRequests(t) {
		var blocking []string
		for _, d := range linter.LintBytes("request.json", msg, linter.Options{Protocol: "aos"}).Diagnostics {
			if aosengine.Counts(d) {
				blocking = append(blocking, d.Rule+" "+d.Pointer+" ("+d.Severity.String()+")")
			}
		}
		ok := aosengine.Admits(msg)
		if ok != (len(blocking) == 0) {
			t.Errorf("%s: the guardian admits it: %v; aoplint's errors that refuse: %q", where, ok, blocking)
		}
		if ok {
			admitted++
		} else {
			refused++
		}
	}
	if admitted < 50 || refused < 20 {
		t.Errorf("only %d admitted and %d refused requests compared", admitted, refused)
	}
	t.Logf("%d requests compared: %d admitted, %d refused", admitted+refused, admitted, refused)
}
