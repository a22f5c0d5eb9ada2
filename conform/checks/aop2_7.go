package checks

import (
	"github.com/aopkit/aopkit/conform"
)

var aop2SnapshotsUntouched = &conform.Check{
	ID:          "aop2/7/snapshots-untouched",
	Family:      "rollback",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "aop2 §7",
	Requirement: "Rollback snapshots are orchestrator-owned: the executor leaves the snapshots the orchestrator took before dispatch untouched.",
	Bad:         `the agent deletes .aop_snapshots/out.txt.before`,
	Good:        `the agent writes out.txt and leaves the snapshot alone`,
	Run: func(s *conform.Session) conform.Outcome {
		snaps := conform.FactAOP2Snapshots.Get(s)
		if len(snaps) == 0 {
			return conform.NotTestedf("the TASK asks for no rollback snapshot")
		}
		for _, sn := range snaps {
			if !sn.Intact {
				return conform.Mismatch("a rollback snapshot was changed or deleted by the agent", "snapshot "+sn.Path+" unchanged", sn.After)
			}
		}
		return conform.Passf("%d snapshots intact", len(snaps))
	},
}
