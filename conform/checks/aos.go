package checks

import (
	"encoding/json"

	"github.com/aopkit/aopkit/conform"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
)

type aosExecuted struct {
	seq         int
	ExecutionID string         `json:"executionId"`
	Name        string         `json:"name"`
	Arguments   map[string]any `json:"arguments"`
}

func aosDecisions(s *conform.Session) []conform.AOSDecision {
	return conform.FactAOSDecisions.Get(s)
}

// aosMemo is what the aos checks decode once per session (sessionMemo).
type aosMemo struct {
	requests   perRecord[*aosspec.Request]
	executions lazy[[]aosExecuted]
	tools      lazy[[]string]
}

// aosExecutions returns what the agent reported it executed, in order (decoded
// once per session: read only).
func aosExecutions(s *conform.Session) []aosExecuted {
	return memoOf(s).aos.executions.get(func() []aosExecuted { return decodeAOSExecutions(s) })
}

func decodeAOSExecutions(s *conform.Session) []aosExecuted {
	var out []aosExecuted
	for _, r := range s.AgentLines(0, "stdout") {
		if r.Msg == nil {
			continue
		}
		var e struct {
			Executed *aosExecuted `json:"executed"`
		}
		if json.Unmarshal(r.Msg, &e) == nil && e.Executed != nil {
			e.Executed.seq = r.Seq
			out = append(out, *e.Executed)
		}
	}
	return out
}

// aosRequest is the JSON-RPC request of an agent record of s as lint/spec/aos
// decodes it: a request with no member when the record's body is none. It is
// decoded once per session: read only.
func aosRequest(s *conform.Session, r *conform.Record) *aosspec.Request {
	return memoOf(s).aos.requests.get(s, r, func(r *conform.Record) *aosspec.Request {
		if req, err := aosspec.DecodeRequest(r.Msg); err == nil {
			return req
		}
		return &aosspec.Request{}
	})
}

// aosRequests returns the agent's JSON-RPC requests of a method ("" for all).
func aosRequests(s *conform.Session, method string) []*conform.Record {
	var out []*conform.Record
	for _, r := range s.AgentLines(0, "") {
		if r.Stream != "http" {
			continue
		}
		if method == "" || r.Key == method {
			out = append(out, r)
		}
	}
	return out
}

// aosScriptTools are the tools of the work script of attempt 1, in order
// (decoded once per session: read only).
func aosScriptTools(s *conform.Session) []string {
	return memoOf(s).aos.tools.get(func() []string { return decodeAOSScriptTools(s) })
}

func decodeAOSScriptTools(s *conform.Session) []string {
	var script struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if a := s.Attempt(1); a != nil {
		json.Unmarshal(a.Input, &script)
	}
	var out []string
	for _, t := range script.Tools {
		out = append(out, t.Name)
	}
	return out
}

// aosReusedExecutionID finds the first executionId the agent used for a second
// steps/toolCallRequest, with the records of its first and second use (seq 0 when
// none was reused), and counts the distinct executionIds.
func aosReusedExecutionID(s *conform.Session) (id string, prev, seq, distinct int) {
	seen := map[string]int{}
	for _, r := range aosRequests(s, "steps/toolCallRequest") {
		id := aosRequest(s, r).Params.V.ToolCallRequest.V.ExecutionID.V
		if p, dup := seen[id]; dup {
			return id, p, r.Seq, len(seen)
		}
		seen[id] = r.Seq
	}
	return "", 0, 0, len(seen)
}

// byExecutionID marks a check that tells tool calls apart by executionId (the
// guardian's decisions, the executions, the results): when the agent reused one,
// its evidence cannot be attributed to a call, and the reuse is the root cause,
// reported by aos/4.6/unique-execution-ids. When the situation it needs never
// arose because the guardian rejected tool call requests as invalid (no decision),
// the invalid requests are the root cause, reported by aos/3.12.1/jsonrpc-request.
func byExecutionID(run func(*conform.Session) conform.Outcome) func(*conform.Session) conform.Outcome {
	return func(s *conform.Session) conform.Outcome {
		if id, prev, seq, _ := aosReusedExecutionID(s); seq != 0 {
			// The sequence rules that pair requests, decisions, executions and
			// results by executionId misread the reuse (AOS-SEQ-008 sees an
			// unmodified re-send of a modified call).
			return conform.NotJudgedf("aos/4.6/unique-execution-ids", "executionId %q was used for two tool calls, records %d and %d: the guardian's decisions and the executions cannot be told apart", id, prev, seq).
				Explaining("AOS-SEQ-004", "AOS-SEQ-007", "AOS-SEQ-008", "AOS-SEQ-012", "AOS-SEQ-014", "AOS-SEQ-015", "AOS-SEQ-017")
		}
		o := run(s)
		if n := aosUndecided(s); o.Verdict == conform.NotTested && n > 0 {
			return conform.NotJudgedf("aos/3.12.1/jsonrpc-request", "the guardian answered %d steps/toolCallRequest requests with JSON-RPC errors, not decisions", n)
		}
		return o
	}
}

// aosUndecided counts the agent's steps/toolCallRequest requests the guardian gave
// no decision (it answered them with a JSON-RPC error: invalid requests).
func aosUndecided(s *conform.Session) int {
	return max(0, len(aosRequests(s, "steps/toolCallRequest"))-len(aosDecisions(s)))
}

// noToolCallRequest is the outcome when the guardian decided no tool call: the agent
// sent none (a failure), or its requests were invalid JSON-RPC and got an error
// instead of a decision (not judged here: aos/3.12.1/jsonrpc-request reports it).
func noToolCallRequest(s *conform.Session) conform.Outcome {
	if n := len(aosRequests(s, "steps/toolCallRequest")); n > 0 {
		return conform.NotJudgedf("aos/3.12.1/jsonrpc-request", "the guardian answered the %d steps/toolCallRequest requests with errors, not decisions", n)
	}
	if len(aosScriptTools(s)) > 0 {
		// The work script has tool calls the agent never requested: that is
		// the failure aos/bind/all-tools-requested reports (a hanging agent).
		return conform.NotJudgedf("aos/bind/all-tools-requested", "the agent sent no steps/toolCallRequest")
	}
	return conform.Failf("the agent sent no steps/toolCallRequest")
}
