package checks

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

var aop2ExtensionKeys = &conform.Check{
	ID:          "aop2/3/extension-keys",
	Family:      "unknown-fields",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "aop2 §3",
	Requirement: "Keys inside extensions MUST start with \"x_\".",
	Lint:        []string{"AOP2-EXT-001"},
	Bad:         `"extensions":{"debug_id":"resp-1"}`,
	Good:        `"extensions":{"x_debug_id":"resp-1"}`,
	Run: func(s *conform.Session) conform.Outcome {
		msgs := s.AgentMsgs(0)
		if len(msgs) == 0 {
			return vacuous()
		}
		for _, r := range msgs {
			if bad := badExtensionKeys(aop2Header(s, r)); len(bad) > 0 {
				return conform.Mismatch(fmt.Sprintf("record %d has extension keys without the x_ prefix", r.Seq), "extension keys starting with x_", strings.Join(bad, ", ")).At(r.Seq)
			}
		}
		return conform.Passf("every extensions key starts with x_")
	},
}
