package checks

import (
	"strings"

	"github.com/aopkit/aopkit/conform"
)

// ContainmentID is the ID of the containment check of a protocol. The runner
// judges it in every scenario whose launcher reported containment.
func ContainmentID(protocol string) string { return protocol + "/" + writesInScratch.ID }

// writesInScratch: the agent writes only in its scratch directory (bindings,
// "Working directory ... Write only there"). Every protocol has it (forProtocol).
var writesInScratch = conform.Check{
	ID: "bind/writes-in-scratch", Family: "containment",
	Tier: conform.Core, Level: conform.MUST, Spec: "bindings §Common to every protocol",
	Requirement: "The agent writes only in its scratch directory (AOPKIT_SCRATCH, with HOME and TMPDIR inside it).",
	Bad:         `echo log >> /tmp/agent.log; cp model.bin ../cache/ (outside AOPKIT_SCRATCH)`,
	Good:        `files in the current directory, "$TMPDIR" and "$HOME" (all inside AOPKIT_SCRATCH)`,
	Run: func(s *conform.Session) conform.Outcome {
		var modes []string
		var escapes []string
		var seqs []int
		for _, r := range s.Events(conform.EventContainment) {
			if m := conform.KeyMode.Get(r.Detail); m != "" && !contains(modes, m) {
				modes = append(modes, m)
			}
			if ws := conform.KeyWritesOutside.Get(r.Detail); len(ws) > 0 {
				escapes = append(escapes, ws...)
				seqs = append(seqs, r.Seq)
			}
		}
		switch {
		case len(modes) == 0:
			return conform.NotTestedf("the launcher reported no containment")
		case len(escapes) > 0:
			return conform.Mismatch("the agent wrote outside its scratch directory", "writes only inside the scratch directory", strings.Join(escapes, "\n")).At(seqs...)
		case strings.HasPrefix(modes[0], "landlock") && len(modes) == 1:
			return conform.Passf("writes outside the scratch directory were refused by the kernel (%s)", modes[0])
		}
		return conform.Passf("no file outside the scratch directory was seen open for writing (%s; detection sees files held open, not short writes)", strings.Join(modes, "; "))
	},
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
