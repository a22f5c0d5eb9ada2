// Package lintgolden lints the reference transcripts of the engines
// (fixtures/reference/<protocol>/) with aoplint's rules: the correct agent's runs are
// clean, and every message the engine itself sent is clean on its own. It lives in
// its own package so that the engine packages do not depend on lint/.
package lintgolden

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/linter"
)

// clean reports whether a transcript is a run of a correct agent: not even a warning.
func clean(proto, name string) bool {
	if proto == "aop2" && strings.HasPrefix(name, "correct-") {
		return true // the shipped scenarios against the correct mockagent (conform/engine/aop2 TestShippedScenarios)
	}
	switch proto {
	case "aop2", "orchmsg":
		return map[string]bool{
			"aop2/happy-path.jsonl":           true,
			"orchmsg/happy-path.jsonl":        true,
			"orchmsg/ask-user-answered.jsonl": true,
			"orchmsg/ask-user-timeout.jsonl":  true,
			"orchmsg/submit-task.jsonl":       true,
			"orchmsg/cancellation.jsonl":      true,
			"orchmsg/shutdown-mid-task.jsonl": true,
		}[proto+"/"+name] || (proto == "orchmsg" && strings.HasPrefix(name, "correct"))
	}
	return strings.HasPrefix(name, "correct") || strings.HasPrefix(name, "delegation") || strings.HasPrefix(name, "child-")
}

func TestGoldenTranscriptsLint(t *testing.T) {
	for _, proto := range []string{"aof", "aop-output", "aop2", "aos", "orchmsg"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "..", "fixtures", "reference", proto, "*.jsonl"))
		if len(files) == 0 {
			t.Fatalf("no golden transcripts for %s", proto)
		}
		for _, path := range files {
			t.Run(proto+"/"+filepath.Base(path), func(t *testing.T) {
				res, err := linter.LintFile(path, linter.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if clean(proto, filepath.Base(path)) {
					for _, d := range res.Diagnostics {
						if d.Severity != lint.Info {
							t.Errorf("correct run has %s %s at line %d: %s", d.Severity, d.Rule, d.Line, d.Message)
						}
					}
				}
				for n, r := range engineRecords(t, path) {
					name := "message.json"
					if f, ok := strings.CutPrefix(r.Stream, "file:"); ok {
						name = filepath.Base(f)
					}
					one := linter.LintBytes(name, r.Msg, linter.Options{Protocol: proto})
					for _, d := range one.Diagnostics {
						if d.Severity != lint.Info {
							t.Errorf("line %d (%s), sent by the engine, breaks %s: %s", n, name, d.Rule, d.Message)
						}
					}
				}
			})
		}
	}
}

type record struct {
	From   string          `json:"from"`
	Stream string          `json:"stream"`
	Msg    json.RawMessage `json:"msg"`
	Detail map[string]any  `json:"detail"`
}

// engineRecords returns the messages the engine wrote (from orchestrator), by line.
func engineRecords(t *testing.T, path string) map[int]record {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int]record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if r.From == "orchestrator" && len(r.Msg) > 0 && r.Detail["probe"] == nil {
			// A probe is a scenario's deliberately off-protocol message, not the
			// engine's (docs/transcript-format.md "Probes").
			out[n] = r
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
