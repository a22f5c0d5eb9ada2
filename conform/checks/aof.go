package checks

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/conform"
)

// aofLine is one stdout line that is meant as an AOF envelope.
type aofLine struct {
	r   *conform.Record
	env map[string]any // nil when it does not parse
}

// aofLines returns the stdout lines meant as envelopes: "AOF/1 " prefixed or JSON
// objects.
func aofLines(s *conform.Session) []aofLine {
	var out []aofLine
	for _, r := range s.AgentLines(0, "stdout") {
		body, prefixed := spec.TrimPrefix(recordText(r))
		if !prefixed && !strings.HasPrefix(body, "{") {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader([]byte(body)))
		dec.UseNumber()
		if dec.Decode(&m) != nil || dec.More() {
			out = append(out, aofLine{r: r})
			continue
		}
		out = append(out, aofLine{r: r, env: m})
	}
	return out
}

func aofEnv(s *conform.Session, key string) string {
	if a := s.Attempt(1); a != nil {
		_ = a
	}
	switch key {
	case "task":
		return str(decode(s.Scenario.Task), "taskId")
	}
	return ""
}

// aofEnvelopes returns the lines that parse as envelopes, those of the given
// types only when types are given.
func aofEnvelopes(s *conform.Session, types ...string) []aofLine {
	var out []aofLine
	for _, l := range aofLines(s) {
		if l.env != nil && (len(types) == 0 || slices.Contains(types, str(l.env, "type"))) {
			out = append(out, l)
		}
	}
	return out
}

func aofCompletions(s *conform.Session) []aofLine { return aofEnvelopes(s, "completion.report") }

// aofNoCompletion is the outcome of a check that reads the completion.report when
// the agent sent none: the root cause, reported by aof/completion/reported.
func aofNoCompletion() conform.Outcome {
	return conform.NotJudgedf("aof/completion/reported", "the agent sent no completion.report")
}
