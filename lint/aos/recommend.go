package aos

// Rules of what the spec recommends in words ("Should be used with", "Strongly
// recommended"): warnings, never errors.

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

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

// ResourceMIME: a Resource states its MIME type.
var ResourceMIME = &lint.Rule{
	ID: "AOS-RESOURCE-001", Title: "resource without mimeType", Protocol: ID, Severity: lint.Warning,
	Spec: "aos-0.1.0 §3.1.5 Resource Object",
	Doc: "A Resource of the agent (Agent.resources, §3.1) may leave out mimeType, but the spec marks it \"Strongly recommended\" (§3.1.5): " +
		"without it the guardian cannot tell text from an image or a binary before it inspects the content.",
	Bad:      `{"context": {"agent": {..., "resources": [{"name": "Pricing", "id": "r-1", "content": "Plan A: 10 USD"}]}}}`,
	Good:     `{"context": {"agent": {..., "resources": [{"name": "Pricing", "id": "r-1", "content": "Plan A: 10 USD", "mimeType": "text/plain"}]}}}`,
	Requires: []string{"aos/§3.1.5/mimetype-recommended"},
	Run:      checkResourceMIME,
}

func checkResourceMIME(p *lint.Pass) {
	rs := viewOf(p.Msg).params.Path("context", "agent", "resources")
	if rs == nil || rs.Kind != jsonread.Array {
		return
	}
	for i, r := range rs.Items {
		if r.Kind == jsonread.Object && !r.Has("mimeType") {
			p.Reportf(jsonread.JoinPointer("/params/context/agent/resources", i), "resource has no mimeType: §3.1.5 marks it \"Strongly recommended\" (e.g. \"text/plain\", \"image/png\")")
		}
	}
}
