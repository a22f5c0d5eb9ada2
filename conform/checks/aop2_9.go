package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var aop2FallbackModel = &conform.Check{
	ID:          "aop2/9/fallback-model",
	Family:      "fallbacks",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "aop2 §9; bindings §aop2",
	Requirement: "Re-dispatch for fallback = a new process with a new TASK whose target.model/provider is the alternative; the RESPONSE's agent block must report the model it ran as.",
	Lint:        []string{"AOP2-SEQ-015"},
	Bad:         `dispatched as gemini-2.5-pro, reports "agent":{"model":"gpt-5.3-codex"}`,
	Good:        `"agent":{"provider":"GEMINI","model":"gemini-2.5-pro"} as in target`,
	Run: func(s *conform.Session) conform.Outcome {
		checked := 0
		for _, a := range s.Attempts {
			target := aop2Input(s, a).Target
			for _, r := range aop2Responses(s, a.N) {
				m := aop2Resp(s, r)
				if m.Agent == nil {
					// No agent block to read the model from: a RESPONSE without
					// its required agent is aop2/5/final-response's failure (when
					// that check passes, on an earlier attempt, this one fails).
					return conform.NotJudgedf("aop2/5/final-response", "attempt %d's RESPONSE has no agent block to name the model it ran as", a.N).At(r.Seq)
				}
				agent := *m.Agent
				want := map[string]string{"model": target.Model, "provider": target.Provider}
				got := map[string]string{"model": agent.Model, "provider": agent.Provider}
				if want["model"] != got["model"] || (got["provider"] != "" && want["provider"] != got["provider"]) {
					return conform.Mismatch(fmt.Sprintf("attempt %d reports another model than it was dispatched as", a.N), want, got).At(r.Seq)
				}
				checked++
			}
		}
		if a := s.Last(); a != nil && (checked == 0 || len(aop2Responses(s, a.N)) == 0) {
			return aop2NoResponse(s, a)
		}
		if checked == 0 {
			return conform.NotTestedf("the agent was never started")
		}
		return conform.Passf("every RESPONSE reports the model it was dispatched as")
	},
}
