package checks

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

// RegularFilesID is the ID of the check that judges conform.EventFileRefused. The runner
// judges it in every scenario in which the harness refused a file.
func RegularFilesID(protocol string) string { return protocol + "/" + regularFiles.ID }

// regularFiles: the files the agent leaves for the harness are regular files of
// bounded size where they belong. Every protocol has it (forProtocol).
var regularFiles = conform.Check{
	ID: "bind/regular-files", Family: "containment",
	Tier: conform.Core, Level: conform.MUST, Spec: "bindings §Common to every protocol",
	Requirement: "The files the implementation under test leaves for the harness to read (an agent's heartbeat, run result, task, snapshot and details files; an orchestrator's data directory) are regular files of bounded size in the directory they belong to: never a FIFO, a device, or a symbolic link leading out of it.",
	Bad:         `ln -sf /dev/zero "$RUN_DIR/run_heartbeat.json"; mkfifo state.json`,
	Good:        `a heartbeat written to a temporary file in the run directory and renamed over run_heartbeat.json`,
	Run: func(s *conform.Session) conform.Outcome {
		var lines []string
		var seqs []int
		for _, r := range s.Events(conform.EventFileRefused) {
			lines = append(lines, fmt.Sprintf("%v: %v", conform.KeyFile.Get(r.Detail), conform.KeyReason.Get(r.Detail)))
			seqs = append(seqs, r.Seq)
		}
		if len(lines) == 0 {
			return conform.Passf("every file the harness read from the agent was a regular file of bounded size")
		}
		return conform.Mismatch(fmt.Sprintf("the harness refused to read %s", lines[0]),
			"regular files of bounded size inside the directory they belong to", strings.Join(lines, "\n")).At(seqs...)
	},
}
