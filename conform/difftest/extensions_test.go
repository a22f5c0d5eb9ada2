package difftest

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	aop2engine "github.com/aopkit/aopkit/conform/engine/aop2"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// extSays are the pointers of the extensions keys each side refuses in msg, an
// aop2 message: aoplint's AOP2-EXT-001, the check aop2/3/extension-keys and,
// for a TASK, the reference engine's ParseTask.
func extSays(t *testing.T, msg []byte) (lintPtrs, checkPtrs, enginePtrs []string, isTask bool) {
	t.Helper()
	res := linter.LintBytes("message.json", msg, linter.Options{Protocol: "aop2"})
	for _, d := range res.Diagnostics {
		if d.Rule == "AOP2-EXT-001" {
			lintPtrs = append(lintPtrs, d.Pointer)
		}
	}
	b := newBuilder()
	b.msg("stdout", "", string(msg))
	o := conform.LookupCheck("aop2/3/extension-keys").Run(b.s)
	if o.Verdict == conform.Fail {
		checkPtrs = strings.Split(o.Actual, ", ")
		for i, p := range checkPtrs {
			checkPtrs[i] = strings.Trim(p, `"`)
		}
	}
	var m map[string]any
	if json.Unmarshal(msg, &m) == nil && m["message_type"] == "TASK" {
		isTask = true
		_, problems, _ := aop2engine.ParseTask(msg)
		for _, p := range problems {
			if p.Rule == "AOP2-EXT-001" {
				enginePtrs = append(enginePtrs, p.Pointer)
			}
		}
	}
	sort.Strings(lintPtrs)
	return lintPtrs, checkPtrs, enginePtrs, isTask
}

func extAgree(t *testing.T, name string, msg []byte) {
	t.Helper()
	l, c, e, task := extSays(t, msg)
	if strings.Join(l, " ") != strings.Join(c, " ") {
		t.Errorf("%s: AOP2-EXT-001 at %q, aop2/3/extension-keys at %q", name, l, c)
	}
	if task && strings.Join(l, " ") != strings.Join(e, " ") {
		t.Errorf("%s: AOP2-EXT-001 at %q, the engine's ParseTask at %q", name, l, e)
	}
}

// TestExtensionKeys: the three judges of §3's x_ keys agree, key by key, on
// hand-made cases and on every aop2 message of the fixtures and the corpus.
func TestExtensionKeys(t *testing.T) {
	for name, msg := range map[string]string{
		"top":           `{"message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T12:37:01Z","extensions":{"x_ok":1,"vendor":2}}`,
		"nested":        `{"message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T12:37:01Z","extensions":{"x_ok":{"extensions":{"inner":1}}}}`,
		"escaped":       `{"message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T12:37:01Z","extensions":{"a/b~c":1,"X_upper":2,"x_":3}}`,
		"not an object": `{"message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T12:37:01Z","extensions":["vendor"]}`,
		"in an array":   `{"message_type":"RESPONSE","artifacts":[{"path":"a","extensions":{"vendor":1}}]}`,
		"clean":         `{"message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T12:37:01Z","extensions":{"x_a":1}}`,
	} {
		extAgree(t, name, []byte(msg))
	}
	n := 0
	aop2Corpus(t, func(name string, m []byte) {
		extAgree(t, name, m)
		n++
	})
	if n < 50 {
		t.Fatalf("only %d aop2 messages in the corpus", n)
	}
}

// aop2Corpus calls f with every JSON object of fixtures/aop2 and
// testdata/speccorpus/aop2 (a .json file, each line of a .jsonl file).
func aop2Corpus(t *testing.T, f func(name string, msg []byte)) {
	t.Helper()
	corpusLines(t, []string{"../../fixtures/aop2", "../../testdata/speccorpus/aop2"}, func(name string, m []byte) {
		if json.Valid(m) && bytes.HasPrefix(bytes.TrimSpace(m), []byte("{")) {
			f(name, m)
		}
	})
}

// TestEngineSchema: the reference engine validates a TASK by the linter's
// schema rule: on every TASK of the fixtures and the corpus, each pointer of
// aoplint's AOP2-SCHEMA-001 is one of the engine's, and at each of the engine's
// aoplint reports an error (AOP2-SCHEMA-001, or the more specific rule that
// claimed the schema's finding there, such as AOP2-VERSION-001; a missing
// member's at the object that lacks it).
func TestEngineSchema(t *testing.T) {
	n := 0
	aop2Corpus(t, func(name string, msg []byte) {
		var m map[string]any
		if json.Unmarshal(msg, &m) != nil || m["message_type"] != "TASK" {
			return
		}
		n++
		schemaAt, errorAt := map[string]bool{}, map[string]bool{}
		for _, d := range linter.LintBytes("message.json", msg, linter.Options{Protocol: "aop2"}).Diagnostics {
			if d.Rule == "AOP2-SCHEMA-001" {
				schemaAt[d.Pointer] = true
			}
			if d.Severity == lint.Error {
				errorAt[d.Pointer] = true
			}
		}
		_, problems, _ := aop2engine.ParseTask(msg)
		engineAt := map[string]bool{}
		for _, p := range problems {
			if p.Rule == "AOP2-SCHEMA-001" {
				engineAt[p.Pointer] = true
				if parent := p.Pointer[:max(strings.LastIndex(p.Pointer, "/"), 0)]; !errorAt[p.Pointer] && !errorAt[parent] {
					t.Errorf("%s: the engine refuses %s (%s), aoplint reports no error there", name, p.Pointer, p.Message)
				}
			}
		}
		for p := range schemaAt {
			if !engineAt[p] {
				t.Errorf("%s: AOP2-SCHEMA-001 at %s, the engine accepts it", name, p)
			}
		}
	})
	if n < 20 {
		t.Fatalf("only %d TASKs in the corpus", n)
	}
}
