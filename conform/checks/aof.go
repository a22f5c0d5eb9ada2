package checks

import (
	"encoding/json"
	"slices"
	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/conform"
)

// aofLine is one stdout line that is meant as an AOF envelope.
type aofLine struct {
	r   *conform.Record
	env *spec.Envelope // nil when it does not parse
}

// aofMemo is what the aof checks decode once per session (sessionMemo).
type aofMemo struct {
	lines lazy[[]aofLine]
	task  lazy[aofScenarioTask]
}

// aofLines returns the stdout lines meant as envelopes: "AOF/1 " prefixed or JSON
// objects (decoded once per session: read only).
func aofLines(s *conform.Session) []aofLine {
	return memoOf(s).aof.lines.get(func() []aofLine { return decodeAOFLines(s) })
}

func decodeAOFLines(s *conform.Session) []aofLine {
	var out []aofLine
	for _, r := range s.AgentLines(0, "stdout") {
		body, prefixed := spec.TrimPrefix(recordText(r))
		if !prefixed && !strings.HasPrefix(body, "{") {
			continue
		}
		env, err := spec.DecodeEnvelope([]byte(body))
		if err != nil {
			env = nil
		}
		out = append(out, aofLine{r: r, env: env})
	}
	return out
}

// aofScenarioTask is what the checks read of a scenario's task.
type aofScenarioTask struct {
	TaskID   string `json:"taskId"`
	Metadata struct {
		DelegationDepth float64 `json:"delegationDepth"`
	} `json:"metadata"`
}

// aofTask is the scenario's task: a member of another type reads as its zero
// value, the members of the right type still being read.
func aofTask(s *conform.Session) aofScenarioTask {
	return memoOf(s).aof.task.get(func() aofScenarioTask {
		var t aofScenarioTask
		_ = json.Unmarshal(s.Scenario.Task, &t)
		return t
	})
}

// aofEnvelopes returns the lines that parse as envelopes, those of the given
// types only when types are given.
func aofEnvelopes(s *conform.Session, types ...string) []aofLine {
	var out []aofLine
	for _, l := range aofLines(s) {
		if l.env != nil && (len(types) == 0 || slices.Contains(types, l.env.Type.V)) {
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

// aofNum is a number member as a float64; false when it is absent, no number
// or out of float64's range.
func aofNum(m spec.Member[json.Number]) (float64, bool) {
	if !m.OK {
		return 0, false
	}
	f, err := m.V.Float64()
	return f, err == nil
}
