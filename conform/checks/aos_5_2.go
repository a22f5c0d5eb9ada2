package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var aosFailClosed = &conform.Check{
	ID:          "aos/5.2/fail-closed",
	Family:      "guardian",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §5.2, §6",
	Requirement: "When the guardian answers a toolCallRequest with a JSON-RPC error, or does not answer at all, there is no allow decision: the agent does not execute the tool.",
	After:       []string{"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/3.8/step-context", "aos/bind/all-tools-requested"},
	Bad:         `the guardian answers -32603, the agent runs deploy anyway`,
	Good:        `no decision, no execution`,
	Run: byExecutionID(func(s *conform.Session) conform.Outcome {
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
				return conform.Mismatch(fmt.Sprintf("the agent executed %q although the guardian answered with an error", e.Name), "no execution without an allow or modify decision", "executed").At(e.seq)
			case "stall":
				return conform.Mismatch(fmt.Sprintf("the agent executed %q although the guardian never answered (it failed open)", e.Name), "no execution without an allow or modify decision (fail closed)", "executed").At(e.seq)
			}
		}
		return conform.Passf("no execution without a decision")
	}),
}
