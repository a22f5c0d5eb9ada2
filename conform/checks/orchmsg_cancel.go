package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
)

var orchmsgCancelStopsTask = &conform.Check{
	ID:          "orchmsg/cancel/stops-task",
	Family:      "cancellation",
	Tier:        conform.Resilient,
	Level:       conform.MUST,
	Spec:        "orchmsg §Task Cancelled",
	Requirement: "notify:task-cancelled: the agent stops working on the task: no further progress or requests for it.",
	Lint:        []string{"ORCH-SEQ-009"},
	Timing:      true,
	Bad:         `event:progress for task-123 keeps coming after notify:task-cancelled`,
	Good:        `after notify:task-cancelled the agent stops and reports nothing more for task-123`,
	Run: func(s *conform.Session) conform.Outcome {
		a := s.Last()
		if a == nil || a.CancelledAt.IsZero() {
			return conform.NotTestedf("the agent ended before the cancellation")
		}
		task := orchmsgTaskID(s)
		for _, r := range orchmsgMsgs(s) {
			if r.Time.Before(a.CancelledAt) && orchmsgTaskOver(s, r, task) {
				return conform.Outcome{Verdict: conform.NotApplicable, Message: fmt.Sprintf("not applicable: the agent reported the task done (record %d) before the cancellation", r.Seq), Seq: []int{r.Seq}}
			}
		}
		limit := a.CancelledAt.Add(slack(s, 300*time.Millisecond))
		for _, r := range orchmsgMsgs(s) {
			if r.Time.Before(limit) {
				continue
			}
			if (r.Key == "event:progress" && orchmsgPayload(s, r).TaskID.V == task) || strings.HasPrefix(r.Key, "request:submit-task") {
				return conform.Mismatch(fmt.Sprintf("record %d continues the cancelled task", r.Seq), "no progress or new work for "+task+" after notify:task-cancelled", conform.Clip(recordText(r), 200)).At(r.Seq)
			}
		}
		return conform.Passf("no work on the task after the cancellation")
	},
}
