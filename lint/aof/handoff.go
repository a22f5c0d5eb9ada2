package aof

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// HandoffAck: handoff.accepted says accepted true, handoff.rejected false and why.
var HandoffAck = ruleDocs.Rule(lint.Rule{
	ID: "AOF-HANDOFF-001", Protocol: "aof", Kinds: []string{KindHandoffAccepted, KindHandoffRejected}, Severity: lint.Error,
	Run: checkHandoffAck,
})

var handoffRules = []*lint.Rule{HandoffAck}

func checkHandoffAck(p *lint.Pass) {
	want := p.Msg.Kind == KindHandoffAccepted
	n := p.Member("/payload/accepted")
	switch {
	case n == nil:
		// schema: required
	case n.Kind != jsonread.Bool:
		p.Reportf("/payload/accepted", "accepted is %s, not a boolean: a %s carries \"accepted\": %v", short(n), p.Msg.Kind, want)
		p.Claim("/payload/accepted")
	case n.Bool != want:
		p.Reportf("/payload/accepted", "a %s carries \"accepted\": %v, not %v: the type and the flag contradict each other", p.Msg.Kind, want, n.Bool)
	}
	if p.Msg.Kind == KindHandoffRejected {
		if r := p.Member("/payload/reason"); r == nil || (r.IsString() && strings.TrimSpace(r.Str) == "") {
			p.ReportSevf(lint.Warning, "/payload", "handoff.rejected without a reason: say why, such as \"reason\": \"Insufficient context: no test plan provided\" "+
				"(the router logs it with delegation.rejected and as the child's blocked reason)")
		}
	}
}
