package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
)

var aosMessageParams = &conform.Check{
	ID:          "aos/4.5/message-params",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §4.5.1, §3.3",
	Requirement: "steps/message params: message (id, role user|agent|system, content with at least one part) and citation (Source[]) are required.",
	Lint:        []string{"AOS-DIALECT-001", "AOS-SEQ-005"},
	After:       []string{"aos/bind/all-tools-requested"},
	Bad:         `steps/message with "citations":[] and no citation`,
	Good:        `steps/message with "message":{"id":"m-1","role":"user","content":[{"kind":"text","text":"…"}]},"citation":[]`,
	Run: func(s *conform.Session) conform.Outcome {
		rs := aosRequests(s, "steps/message")
		for _, r := range rs {
			// The params as a map: MessageProblem judges them.
			p, _ := aosRequest(s, r).Params.Any().(map[string]any)
			if perr := aosspec.MessageProblem(p); p == nil || perr != nil {
				what := "params is required"
				if perr != nil {
					what = perr.Pointer + " " + perr.Problem
				}
				return conform.Mismatch(fmt.Sprintf("record %d: invalid steps/message params: %s", r.Seq, what), "message {id, role, content[1..]} and citation []", conform.Clip(recordText(r), 300)).At(r.Seq)
			}
		}
		if len(rs) == 0 {
			return conform.NotTestedf("the agent sent no steps/message")
		}
		return conform.Passf("%d steps/message requests well-formed", len(rs))
	},
}
