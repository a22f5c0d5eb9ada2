package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var orchmsgCorrelationUniqueIDs = &conform.Check{
	ID:          "orchmsg/correlation/unique-ids",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "orchmsg §Correlation",
	Requirement: "Each request gets unique UUID.",
	Lint:        []string{"ORCH-SEQ-003"},
	Bad:         `two requests with "id":"req-1"`,
	Good:        `a fresh UUID per message`,
	Run: func(s *conform.Session) conform.Outcome {
		seen := map[string]int{}
		n := 0
		for _, r := range orchmsgMsgs(s) {
			id := orchmsgMsg(s, r).ID.V
			if id == "" {
				continue
			}
			n++
			if prev, dup := seen[id]; dup {
				return conform.Mismatch(fmt.Sprintf("id %q is used by records %d and %d", id, prev, r.Seq), "a unique id per message", id+" twice").At(prev, r.Seq)
			}
			seen[id] = r.Seq
		}
		if n == 0 {
			return vacuous()
		}
		return conform.Passf("%d unique ids", n)
	},
}

var orchmsgCorrelationResponsesAwaited = &conform.Check{
	ID:          "orchmsg/correlation/responses-awaited",
	Family:      "timeouts",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "orchmsg §Timeouts, §Correlation",
	Requirement: "Requests timeout after 30 seconds; the timeout handler cleans up pending requests: an unanswered request neither blocks notifications nor is re-sent under the same id.",
	// An agent that ignores notify:shutdown in every scenario ignores it with a
	// request pending too: exit-within-grace's failure, shown elsewhere.
	AfterElsewhere: []string{"orchmsg/shutdown/exit-within-grace"},
	Timing:         true,
	Bad:            `the agent blocks on an unanswered request and ignores notify:shutdown`,
	Good:           `the agent keeps reading stdin while it waits and exits on notify:shutdown`,
	Run: func(s *conform.Session) conform.Outcome {
		withheld := s.Events(conform.EventWithheld)
		if len(withheld) == 0 {
			return conform.NotTestedf("no request was withheld")
		}
		a := s.Last()
		if a.ShutdownAt.IsZero() {
			return conform.NotTestedf("the agent ended before the shutdown notification")
		}
		if a.Stopped() {
			return conform.Mismatch("with a request pending, the agent did not act on notify:shutdown", "exit within the grace period while a request is unanswered", describeExit(a))
		}
		return conform.Passf("the agent handled shutdown while request(s) were pending")
	},
}
