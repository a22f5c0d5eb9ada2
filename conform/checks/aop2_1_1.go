package checks

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

var aop2VersionHeader = &conform.Check{
	ID:          "aop2/1.1/version-header",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aop2 §1.1",
	Requirement: "aop_version starts with \"2.\"; protocol_family – MUST be \"AOP\".",
	Lint:        []string{"AOP2-VERSION-", "AOP2-ENVELOPE-002"},
	Bad:         `{"aop_version":"1.0","message_type":"RESPONSE",...}`,
	Good:        `{"aop_version":"2.0.2-C","protocol_family":"AOP","message_type":"RESPONSE",...}`,
	Run: func(s *conform.Session) conform.Outcome {
		msgs := s.AgentMsgs(0)
		if len(msgs) == 0 {
			return vacuous()
		}
		for _, r := range msgs {
			m := aop2Header(s, r)
			if v := m.AOPVersion; !strings.HasPrefix(v, "2.") {
				return conform.Mismatch(fmt.Sprintf("record %d has aop_version %q", r.Seq, v), "aop_version \"2.x\"", v).At(r.Seq)
			}
			if pf := m.ProtocolFamily; pf != nil && *pf != "AOP" {
				pf := *pf
				return conform.Mismatch(fmt.Sprintf("record %d has protocol_family %q", r.Seq, pf), "AOP", pf).At(r.Seq)
			}
		}
		return conform.Passf("%d messages with a v2 header", len(msgs))
	},
}
