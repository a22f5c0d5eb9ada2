package checks

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/aopkit/aopkit/conform"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
)

var aosC = common{protocol: "aos", bindings: "bindings §aos"}

func aosCheck(id, family string, tier conform.Tier, level conform.Level, spec, req string, lint []string, run func(*conform.Session) conform.Outcome) *conform.Check {
	return &conform.Check{ID: "aos/" + id, Protocol: "aos", Family: family, Tier: tier, Level: level, Spec: spec, Requirement: req, Lint: lint, Run: run}
}

type aosExecuted struct {
	seq         int
	ExecutionID string         `json:"executionId"`
	Name        string         `json:"name"`
	Arguments   map[string]any `json:"arguments"`
}

func aosDecisions(s *conform.Session) []conform.AOSDecision {
	return conform.FactAOSDecisions.Get(s)
}

func aosExecutions(s *conform.Session) []aosExecuted {
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

func aosScriptTools(s *conform.Session) []string {
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

var aosChecks = []*conform.Check{
	aosC.lintClean("aos-0.1.0 §3, §4"),
	aosC.exitZero("The agent prints one JSON line per executed tool on stdout and exits 0."),
	aosC.stopOnTerm("timeouts"),
	aosC.stdoutOnly(conform.Full, conform.MUST, "bindings §aos",
		"The agent prints one JSON line per executed tool on stdout {\"executed\":{...}}; anything else belongs on stderr.",
		func(r *conform.Record) bool { return r.Key == "executed" }),

	aosCheck("2.2/content-type", "happy-path", conform.Core, conform.MUST, "aos-0.1.0 §2.2, §4",
		"The Content-Type header for HTTP requests containing JSON-RPC payloads MUST be application/json; the body MUST be a JSONRPCRequest sent with HTTP POST.",
		nil,
		func(s *conform.Session) conform.Outcome {
			reqs := aosRequests(s, "")
			if len(reqs) == 0 {
				return conform.Failf("the agent never called the guardian")
			}
			for _, r := range reqs {
				if !r.Detail.IsZero() {
					o := conform.Mismatch(fmt.Sprintf("record %d was not a JSON POST", r.Seq), "POST with Content-Type: application/json", fmt.Sprintf("%v %v", conform.KeyMethod.Get(r.Detail), conform.KeyContentType.Get(r.Detail)))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("%d requests, all application/json POST", len(reqs))
		}),

	aosCheck("3.12.1/jsonrpc-request", "happy-path", conform.Core, conform.MUST, "aos-0.1.0 §3.12.1",
		"jsonrpc MUST be exactly \"2.0\"; id MUST contain a String or Number(Integer) value; method is one of the AOS methods (§4); ids are not reused.",
		[]string{"AOS-RPC-001", "AOS-RPC-002", "AOS-RPC-004", "AOS-SEQ-011"},
		func(s *conform.Session) conform.Outcome {
			reqs := aosRequests(s, "")
			if len(reqs) == 0 {
				return conform.Failf("the agent never called the guardian")
			}
			ids := map[string]int{}
			for _, r := range reqs {
				m := decode(r.Msg)
				if m == nil {
					o := conform.Mismatch(fmt.Sprintf("record %d is not a JSON object", r.Seq), "a JSON-RPC request object", conform.Clip(recordText(r), 200))
					o.Seq = []int{r.Seq}
					return o
				}
				id := field(m, "id")
				rid, idOK := aosspec.RequestID(id)
				if str(m, "jsonrpc") != "2.0" || !aosspec.IsMethod(str(m, "method")) || !idOK {
					o := conform.Mismatch(fmt.Sprintf("record %d is not a valid AOS JSON-RPC request", r.Seq), map[string]any{"jsonrpc": "2.0", "method": "an AOS method (steps/*, protocols/*, ping)", "id": "a string or integer"}, map[string]any{"jsonrpc": field(m, "jsonrpc"), "method": field(m, "method"), "id": id})
					o.Seq = []int{r.Seq}
					return o
				}
				k := rid.String() // "1" and 1 are two ids
				if prev, dup := ids[k]; dup {
					o := conform.Mismatch(fmt.Sprintf("request id %v reused (records %d and %d)", id, prev, r.Seq), "a new id per request", k+" twice")
					o.Seq = []int{prev, r.Seq}
					return o
				}
				ids[k] = r.Seq
			}
			return conform.Passf("%d valid JSON-RPC requests", len(reqs))
		}),

	byExecutionID(aosCheck("4.6/request-before-execute", "happy-path", conform.Core, conform.MUST, "aos-0.1.0 §4.6; bindings §aos",
		"steps/toolCallRequest should be used after tool inputs are inferred and before calling the tool: every executed tool was first submitted to the guardian and allowed (or modified).",
		[]string{"AOS-SEQ-004", "AOS-SEQ-014"},
		func(s *conform.Session) conform.Outcome {
			ds := aosDecisions(s)
			byExec := map[string]conform.AOSDecision{}
			for _, d := range ds {
				byExec[d.ExecutionID] = d
			}
			ex := aosExecutions(s)
			for _, e := range ex {
				d, ok := byExec[e.ExecutionID]
				if !ok || d.Seq > e.seq {
					o := conform.Mismatch(fmt.Sprintf("tool %q (executionId %q) ran without a prior steps/toolCallRequest", e.Name, e.ExecutionID), "steps/toolCallRequest answered before execution", "no request for this executionId")
					o.Seq = []int{e.seq}
					return o
				}
			}
			if len(ds) == 0 {
				return noToolCallRequest(s)
			}
			return conform.Passf("%d executions, each requested first", len(ex))
		})),

	byExecutionID(aosCheck("bind/all-tools-requested", "happy-path", conform.Core, conform.MUST, "bindings §aos",
		"Before each tool call of the work script the agent sends steps/toolCallRequest, in order.",
		nil,
		func(s *conform.Session) conform.Outcome {
			want := aosScriptTools(s)
			ds := aosDecisions(s)
			var got []string
			for _, d := range ds {
				got = append(got, d.Tool)
			}
			if len(want) == 0 {
				return conform.NotTestedf("the work script has no tools")
			}
			if n := aosUndecided(s); n > 0 && !reflect.DeepEqual(want, got) {
				// Requests the guardian rejected as invalid JSON-RPC have no decision
				// and no tool name: the invalid request is the root cause.
				return conform.NotJudgedf("aos/3.12.1/jsonrpc-request", "the guardian answered %d steps/toolCallRequest requests with JSON-RPC errors, not decisions", n)
			}
			if !reflect.DeepEqual(want, got) {
				return conform.Mismatch("the tool call requests do not follow the work script", want, got)
			}
			return conform.Passf("%d tool calls requested in order", len(got))
		})),

	byExecutionID(aosCheck("5.1/deny-enforced", "guardian", conform.Core, conform.MUST, "aos-0.1.0 §5.1; bindings §aos",
		"The agent understands AOS responses and enforces results: deny → never execute the tool (and send no toolCallResult).",
		[]string{"AOS-SEQ-007"},
		func(s *conform.Session) conform.Outcome {
			denied := map[string]bool{}
			for _, d := range aosDecisions(s) {
				if d.Decision == "deny" {
					denied[d.ExecutionID] = true
				}
			}
			if len(denied) == 0 {
				return conform.NotTestedf("the guardian denied nothing")
			}
			for _, e := range aosExecutions(s) {
				if denied[e.ExecutionID] {
					o := conform.Mismatch(fmt.Sprintf("the agent executed the denied tool %q", e.Name), "no execution of "+e.ExecutionID, "executed")
					o.Seq = []int{e.seq}
					return o
				}
			}
			for _, r := range aosRequests(s, "steps/toolCallResult") {
				if id := str(decode(r.Msg), "params", "executionId"); denied[id] {
					o := conform.Mismatch("the agent sent a toolCallResult for a denied call", "no steps/toolCallResult for "+id, "toolCallResult sent")
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("%d denied calls never executed", len(denied))
		})),

	byExecutionID(aosCheck("5.1/modify-enforced", "guardian", conform.Core, conform.MUST, "aos-0.1.0 §5.1; bindings §aos",
		"modify → execute the modifiedRequest instead of the original request.",
		[]string{"AOS-SEQ-008", "AOS-SEQ-015"},
		func(s *conform.Session) conform.Outcome {
			mods := map[string]conform.AOSDecision{}
			for _, d := range aosDecisions(s) {
				if d.Decision == "modify" {
					mods[d.ExecutionID] = d
				}
			}
			if len(mods) == 0 {
				return conform.NotTestedf("the guardian modified nothing")
			}
			done := 0
			for _, e := range aosExecutions(s) {
				d, ok := mods[e.ExecutionID]
				if !ok {
					continue
				}
				var want map[string]any
				json.Unmarshal(d.Arguments, &want)
				if !reflect.DeepEqual(want, e.Arguments) {
					o := conform.Mismatch(fmt.Sprintf("tool %q ran with its original arguments, not the modified ones", e.Name), want, e.Arguments)
					o.Seq = []int{e.seq}
					return o
				}
				done++
			}
			if done < len(mods) {
				return conform.Mismatch("a modified tool call was never executed", fmt.Sprintf("%d modified executions", len(mods)), fmt.Sprintf("%d", done))
			}
			return conform.Passf("%d modified calls executed as modified", done)
		})),

	aosCheck("3.8/step-context", "happy-path", conform.Core, conform.MUST, "aos-0.1.0 §3.8, §4",
		"steps/* requests carry context: StepContext with agent (name, id, instructions, version, provider {name, url}), session.id, turnId, stepId and an ISO 8601 timestamp.",
		[]string{"AOS-TIME-001", "AOS-SEQ-006"},
		func(s *conform.Session) conform.Outcome {
			n := 0
			for _, r := range aosRequests(s, "") {
				if !strings.HasPrefix(r.Key, "steps/") {
					continue
				}
				n++
				ctx, _ := field(decode(r.Msg), "params", "context").(map[string]any)
				var problems []string
				if ctx == nil {
					problems = append(problems, "params.context is required: a StepContext object")
				} else if perr := aosspec.StepContextProblem(ctx); perr != nil {
					problems = append(problems, perr.Pointer+" "+perr.Problem)
				}
				if len(problems) > 0 {
					o := conform.Mismatch(fmt.Sprintf("record %d (%s): invalid StepContext", r.Seq, r.Key), "a complete StepContext", strings.Join(problems, "\n"))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if n == 0 {
				if len(aosScriptTools(s)) > 0 {
					return conform.NotJudgedf("aos/bind/all-tools-requested", "the agent sent no steps/* request")
				}
				return conform.Failf("the agent sent no steps/* request")
			}
			return conform.Passf("%d step requests with a valid context", n)
		}),

	aosCheck("4.5/message-params", "happy-path", conform.Core, conform.MUST, "aos-0.1.0 §4.5.1, §3.3",
		"steps/message params: message (id, role user|agent|system, content with at least one part) and citation (Source[]) are required.",
		[]string{"AOS-DIALECT-001", "AOS-SEQ-005"},
		func(s *conform.Session) conform.Outcome {
			rs := aosRequests(s, "steps/message")
			for _, r := range rs {
				p, _ := field(decode(r.Msg), "params").(map[string]any)
				if perr := aosspec.MessageProblem(p); p == nil || perr != nil {
					what := "params is required"
					if perr != nil {
						what = perr.Pointer + " " + perr.Problem
					}
					o := conform.Mismatch(fmt.Sprintf("record %d: invalid steps/message params: %s", r.Seq, what), "message {id, role, content[1..]} and citation []", conform.Clip(recordText(r), 300))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if len(rs) == 0 {
				return conform.NotTestedf("the agent sent no steps/message")
			}
			return conform.Passf("%d steps/message requests well-formed", len(rs))
		}),

	aosCheck("4.6/unique-execution-ids", "happy-path", conform.Core, conform.MUST, "aos-0.1.0 §3.15",
		"executionId: Execution id of the tool, used to correlate tool call request and result: one executionId per tool call.",
		[]string{"AOS-SEQ-012"},
		func(s *conform.Session) conform.Outcome {
			id, prev, seq, n := aosReusedExecutionID(s)
			switch {
			case seq != 0:
				o := conform.Mismatch(fmt.Sprintf("executionId %q reused", id), "a new executionId per tool call", fmt.Sprintf("records %d and %d", prev, seq))
				o.Seq = []int{prev, seq}
				return o
			case n == 0:
				return noToolCallRequest(s)
			}
			return conform.Passf("%d distinct executionIds", n)
		}),

	byExecutionID(aosCheck("4.6/result-after-execute", "happy-path", conform.Core, conform.MUST, "aos-0.1.0 §4.6 steps/toolCallResult",
		"steps/toolCallResult should be used after the tool is completed, with the executionId of the steps/toolCallRequest.",
		[]string{"AOS-SEQ-017"},
		func(s *conform.Session) conform.Outcome {
			results := map[string]int{}
			requested := map[string]int{}
			for _, r := range aosRequests(s, "steps/toolCallRequest") {
				id := str(decode(r.Msg), "params", "toolCallRequest", "executionId")
				if _, ok := requested[id]; !ok {
					requested[id] = r.Seq
				}
			}
			for _, r := range aosRequests(s, "steps/toolCallResult") {
				id := str(decode(r.Msg), "params", "executionId")
				if rq, ok := requested[id]; !ok || rq > r.Seq {
					o := conform.Mismatch(fmt.Sprintf("record %d reports a result before (or without) its steps/toolCallRequest", r.Seq), "steps/toolCallResult after the steps/toolCallRequest of "+id, "result first")
					o.Seq = []int{r.Seq}
					return o
				}
				results[id] = r.Seq
			}
			ex := aosExecutions(s)
			if len(ex) == 0 {
				return conform.NotTestedf("no tool was executed")
			}
			for _, e := range ex {
				if _, ok := results[e.ExecutionID]; !ok {
					o := conform.Mismatch(fmt.Sprintf("no steps/toolCallResult for executed tool %q", e.Name), "steps/toolCallResult with executionId "+e.ExecutionID, "none")
					o.Seq = []int{e.seq}
					return o
				}
			}
			return conform.Passf("%d results reported", len(ex))
		})),

	byExecutionID(aosCheck("5.2/fail-closed", "guardian", conform.Resilient, conform.MUST, "aos-0.1.0 §5.2, §6",
		"When the guardian answers a toolCallRequest with a JSON-RPC error, or does not answer at all, there is no allow decision: the agent does not execute the tool.",
		nil,
		func(s *conform.Session) conform.Outcome {
			errd := map[string]string{} // executionId → "error" or "stall"
			for _, d := range aosDecisions(s) {
				if d.Decision == "error" || d.Decision == "stall" {
					errd[d.ExecutionID] = d.Decision
				}
			}
			if len(errd) == 0 {
				return conform.NotTestedf("the guardian answered no call with an error and withheld no answer")
			}
			for _, e := range aosExecutions(s) {
				switch errd[e.ExecutionID] {
				case "error":
					o := conform.Mismatch(fmt.Sprintf("the agent executed %q although the guardian answered with an error", e.Name), "no execution without an allow or modify decision", "executed")
					o.Seq = []int{e.seq}
					return o
				case "stall":
					o := conform.Mismatch(fmt.Sprintf("the agent executed %q although the guardian never answered (it failed open)", e.Name), "no execution without an allow or modify decision (fail closed)", "executed")
					o.Seq = []int{e.seq}
					return o
				}
			}
			return conform.Passf("no execution without a decision")
		})),
}

// aosReusedExecutionID finds the first executionId the agent used for a second
// steps/toolCallRequest, with the records of its first and second use (seq 0 when
// none was reused), and counts the distinct executionIds.
func aosReusedExecutionID(s *conform.Session) (id string, prev, seq, distinct int) {
	seen := map[string]int{}
	for _, r := range aosRequests(s, "steps/toolCallRequest") {
		id := str(decode(r.Msg), "params", "toolCallRequest", "executionId")
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
func byExecutionID(c *conform.Check) *conform.Check {
	run := c.Run
	c.Run = func(s *conform.Session) conform.Outcome {
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
	return c
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
