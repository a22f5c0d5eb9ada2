package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var aosRequestBeforeExecute = &conform.Check{
	ID:          "aos/4.6/request-before-execute",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §4.6; bindings §aos",
	Requirement: "steps/toolCallRequest should be used after tool inputs are inferred and before calling the tool: every executed tool was first submitted to the guardian and allowed (or modified).",
	Lint:        []string{"AOS-SEQ-004", "AOS-SEQ-014"},
	After:       []string{"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/3.8/step-context"},
	Bad:         `the last tool runs without a steps/toolCallRequest`,
	Good:        `steps/toolCallRequest, decision allow, then the tool runs`,
	Run: byExecutionID(func(s *conform.Session) conform.Outcome {
		ds := aosDecisions(s)
		byExec := map[string]conform.AOSDecision{}
		for _, d := range ds {
			byExec[d.ExecutionID] = d
		}
		ex := aosExecutions(s)
		for _, e := range ex {
			d, ok := byExec[e.ExecutionID]
			if !ok || d.Seq > e.seq {
				return conform.Mismatch(fmt.Sprintf("tool %q (executionId %q) ran without a prior steps/toolCallRequest", e.Name, e.ExecutionID), "steps/toolCallRequest answered before execution", "no request for this executionId").At(e.seq)
			}
		}
		if len(ds) == 0 {
			return noToolCallRequest(s)
		}
		return conform.Passf("%d executions, each requested first", len(ex))
	}),
}

var aosUniqueExecutionIDs = &conform.Check{
	ID:          "aos/4.6/unique-execution-ids",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §3.15",
	Requirement: "executionId: Execution id of the tool, used to correlate tool call request and result: one executionId per tool call.",
	Lint:        []string{"AOS-SEQ-012"},
	Bad:         `every tool call uses "executionId":"exec-1"`,
	Good:        `exec-1, exec-2, exec-3`,
	Run: func(s *conform.Session) conform.Outcome {
		id, prev, seq, n := aosReusedExecutionID(s)
		switch {
		case seq != 0:
			return conform.Mismatch(fmt.Sprintf("executionId %q reused", id), "a new executionId per tool call", fmt.Sprintf("records %d and %d", prev, seq)).At(prev, seq)
		case n == 0:
			return noToolCallRequest(s)
		}
		return conform.Passf("%d distinct executionIds", n)
	},
}

var aosResultAfterExecute = &conform.Check{
	ID:          "aos/4.6/result-after-execute",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §4.6 steps/toolCallResult",
	Requirement: "steps/toolCallResult should be used after the tool is completed, with the executionId of the steps/toolCallRequest.",
	Lint:        []string{"AOS-SEQ-017"},
	After:       []string{"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/3.8/step-context", "aos/4.6/request-before-execute", "aos/bind/all-tools-requested"},
	Bad:         `steps/toolCallResult before its steps/toolCallRequest, or none after a run`,
	Good:        `steps/toolCallResult with the executionId after the tool ran`,
	Run: byExecutionID(func(s *conform.Session) conform.Outcome {
		results := map[string]int{}
		requested := map[string]int{}
		for _, r := range aosRequests(s, "steps/toolCallRequest") {
			id := aosRequest(s, r).Params.V.ToolCallRequest.V.ExecutionID.V
			if _, ok := requested[id]; !ok {
				requested[id] = r.Seq
			}
		}
		for _, r := range aosRequests(s, "steps/toolCallResult") {
			id := aosRequest(s, r).Params.V.ExecutionID.V
			if rq, ok := requested[id]; !ok || rq > r.Seq {
				return conform.Mismatch(fmt.Sprintf("record %d reports a result before (or without) its steps/toolCallRequest", r.Seq), "steps/toolCallResult after the steps/toolCallRequest of "+id, "result first").At(r.Seq)
			}
			results[id] = r.Seq
		}
		ex := aosExecutions(s)
		if len(ex) == 0 {
			return conform.NotTestedf("no tool was executed")
		}
		for _, e := range ex {
			if _, ok := results[e.ExecutionID]; !ok {
				if o := crashed(s, fmt.Sprintf("after it executed %q, before its steps/toolCallResult", e.Name)); o != nil {
					return *o
				}
				return conform.Mismatch(fmt.Sprintf("no steps/toolCallResult for executed tool %q", e.Name), "steps/toolCallResult with executionId "+e.ExecutionID, "none").At(e.seq)
			}
		}
		return conform.Passf("%d results reported", len(ex))
	}),
}
