package difftest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// orchmsgCorpus is every orchmsg message of the fixtures, the spec corpus, the
// reference transcripts (the records' msg) and the upstream reference, each
// as its own JSON text, by where it comes from.
func orchmsgCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	msgs := map[string][]byte{}
	add := func(where string, b []byte) {
		var rec struct {
			Aopkit   string          `json:"aopkit"`
			Protocol string          `json:"protocol"`
			Msg      json.RawMessage `json:"msg"`
		}
		if json.Unmarshal(b, &rec) == nil && rec.Aopkit != "" {
			if rec.Protocol != "orchmsg" || rec.Msg == nil {
				return
			}
			b = rec.Msg
		}
		if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
			msgs[where] = b
		}
	}
	for _, root := range []string{"../../fixtures/orchmsg", "../../fixtures/reference/orchmsg", "../../testdata/speccorpus/orchmsg", "/work/shared/reference/upstream/orchmsg"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".golden") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if json.Valid(data) {
				add(path, data)
				return nil
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
			for n := 1; sc.Scan(); n++ {
				add(path+":"+strconv.Itoa(n), bytes.Clone(sc.Bytes()))
			}
			return nil
		})
		if err != nil && !(os.IsNotExist(err) && strings.HasPrefix(root, "/work/")) {
			t.Fatal(err)
		}
	}
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
	msgs := orchmsgCorpus(t)
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
