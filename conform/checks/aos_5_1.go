package checks

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/aopkit/aopkit/conform"
)

var aosDenyEnforced = &conform.Check{
	ID:          "aos/5.1/deny-enforced",
	Family:      "guardian",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §5.1; bindings §aos",
	Requirement: "The agent understands AOS responses and enforces results: deny → never execute the tool (and send no toolCallResult).",
	Lint:        []string{"AOS-SEQ-007"},
	After:       []string{"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/3.8/step-context", "aos/4.6/request-before-execute", "aos/bind/all-tools-requested"},
	Bad:         `decision deny, the agent runs delete_file anyway`,
	Good:        `decision deny, no execution and no toolCallResult`,
	Run: byExecutionID(func(s *conform.Session) conform.Outcome {
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
				return conform.Mismatch(fmt.Sprintf("the agent executed the denied tool %q", e.Name), "no execution of "+e.ExecutionID, "executed").At(e.seq)
			}
		}
		for _, r := range aosRequests(s, "steps/toolCallResult") {
			if id := aosRequest(s, r).Params.V.ExecutionID.V; denied[id] {
				return conform.Mismatch("the agent sent a toolCallResult for a denied call", "no steps/toolCallResult for "+id, "toolCallResult sent").At(r.Seq)
			}
		}
		return conform.Passf("%d denied calls never executed", len(denied))
	}),
}

var aosModifyEnforced = &conform.Check{
	ID:          "aos/5.1/modify-enforced",
	Family:      "guardian",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §5.1; bindings §aos",
	Requirement: "modify → execute the modifiedRequest instead of the original request.",
	Lint:        []string{"AOS-SEQ-008", "AOS-SEQ-015"},
	After:       []string{"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/3.8/step-context", "aos/4.6/request-before-execute", "aos/bind/all-tools-requested"},
	Bad:         `decision modify (command "ls build"), the agent runs "rm -rf build"`,
	Good:        `the agent runs the modifiedRequest's inputs: "ls build"`,
	Run: byExecutionID(func(s *conform.Session) conform.Outcome {
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
				return conform.Mismatch(fmt.Sprintf("tool %q ran with its original arguments, not the modified ones", e.Name), want, e.Arguments).At(e.seq)
			}
			done++
		}
		if done < len(mods) {
			return conform.Mismatch("a modified tool call was never executed", fmt.Sprintf("%d modified executions", len(mods)), fmt.Sprintf("%d", done))
		}
		return conform.Passf("%d modified calls executed as modified", done)
	}),
}
