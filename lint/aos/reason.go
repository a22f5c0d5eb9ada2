package aos

import "github.com/aopkit/aopkit/lint"

// MessageReasoning: reasoning belongs to an agent or a system message.
var MessageReasoning = &lint.Rule{
	ID: "AOS-REASON-001", Title: "reasoning on a user message", Protocol: ID, Kinds: []string{"steps/message"}, Severity: lint.Warning,
	Spec: "aos-0.1.0 §4.5.1 Request params Object",
	Doc: "steps/message params carry an optional reasoning, the \"Agent's reasoning. Should be used with agent or system message.\" (§4.5.1): " +
		"the agent's reasoning explains what the agent answers (role agent) or what the system decided (role system). " +
		"A user message is the user's prompt, the agent's input (§4.5): reasoning there is put with the wrong message (send it with the agent's answer).",
	Bad:      `{"method": "steps/message", "params": {"context": {...}, "message": {"role": "user", "content": [...]}, "citation": [], "reasoning": "The user wants a refund."}}`,
	Good:     `{"method": "steps/message", "params": {"context": {...}, "message": {"role": "agent", "content": [...]}, "citation": [], "reasoning": "The order qualifies for a refund."}}`,
	Requires: []string{"aos/§4.5.1/reasoning-with-agent"},
	Run:      checkMessageReasoning,
}

func checkMessageReasoning(p *lint.Pass) {
	params := viewOf(p.Msg).params
	r := params.Get("reasoning")
	if r == nil || !r.IsString() {
		return
	}
	if role := params.Path("message", "role"); role.IsString() && role.Str == "user" {
		p.Reportf("/params/reasoning", "reasoning on a user message: §4.5.1 has reasoning \"used with agent or system message\"; a user message is the agent's input, so send the reasoning with the agent's answer")
	}
}
