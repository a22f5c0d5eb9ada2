package checks

import (
	"strings"

	"github.com/aopkit/aopkit/conform"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
)

var aosStepContext = &conform.Check{
	ID:          "aos/3.8/step-context",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §3.8, §4",
	Requirement: "steps/* requests carry context: StepContext with agent (name, id, instructions, version, provider {name, url}), session.id, turnId, stepId and an ISO 8601 timestamp.",
	Lint:        []string{"AOS-TIME-001", "AOS-SEQ-006"},
	Bad:         `"context":{"timestamp":"22/11/2026 10:00",...}`,
	Good:        `"context":{"agent":{...},"session":{"id":"s-1"},"turnId":"t-1","stepId":"step-3","timestamp":"2026-11-22T10:00:00Z"}`,
	Run: func(s *conform.Session) conform.Outcome {
		n := 0
		for _, r := range aosRequests(s, "") {
			if !strings.HasPrefix(r.Key, "steps/") {
				continue
			}
			n++
			ctx := aosRequest(s, r).Params.V.Context.V
			var problems []string
			if ctx == nil {
				problems = append(problems, "params.context is required: a StepContext object")
			} else if perr := aosspec.StepContextProblem(ctx); perr != nil {
				problems = append(problems, perr.Pointer+" "+perr.Problem)
			}
			if o := invalid(r.Seq, " ("+r.Key+"): invalid StepContext", "a complete StepContext", problems); o != nil {
				return *o
			}
		}
		if n == 0 {
			if len(aosScriptTools(s)) > 0 {
				return conform.NotJudgedf("aos/bind/all-tools-requested", "the agent sent no steps/* request")
			}
			return conform.Failf("the agent sent no steps/* request")
		}
		return conform.Passf("%d step requests with a valid context", n)
	},
}
