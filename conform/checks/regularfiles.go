package checks

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

// FileRefusedEvent is the harness event this package's regular-files check
// judges (conform.FileRefusedEvent).
const FileRefusedEvent = conform.FileRefusedEvent

// RegularFilesID is the ID of the check that judges FileRefusedEvent. The runner
// judges it in every scenario in which the harness refused a file.
func RegularFilesID(protocol string) string { return protocol + "/bind/regular-files" }

func init() {
	for _, p := range conform.Protocols {
		conform.Register(regularFiles(p))
	}
}

// regularFiles: the files the agent leaves for the harness are regular files of
// bounded size where they belong.
func regularFiles(protocol string) *conform.Check {
	return &conform.Check{
		ID: RegularFilesID(protocol), Protocol: protocol, Family: "containment",
		Tier: conform.Core, Level: conform.MUST, Spec: "bindings §Common to every protocol",
		Requirement: "The files the implementation under test leaves for the harness to read (an agent's heartbeat, run result, task, snapshot and details files; an orchestrator's data directory) are regular files of bounded size in the directory they belong to: never a FIFO, a device, or a symbolic link leading out of it.",
		Bad:         `ln -sf /dev/zero "$RUN_DIR/run_heartbeat.json"; mkfifo state.json`,
		Good:        `a heartbeat written to a temporary file in the run directory and renamed over run_heartbeat.json`,
		Run: func(s *conform.Session) conform.Outcome {
			var lines []string
			var seqs []int
			for i := range s.Records {
				r := &s.Records[i]
				if r.From != "harness" || r.Event != FileRefusedEvent {
					continue
				}
				lines = append(lines, fmt.Sprintf("%v: %v", r.Detail["file"], r.Detail["reason"]))
				seqs = append(seqs, r.Seq)
			}
			if len(lines) == 0 {
				return conform.Passf("every file the harness read from the agent was a regular file of bounded size")
			}
			o := conform.Mismatch(fmt.Sprintf("the harness refused to read %s", lines[0]),
				"regular files of bounded size inside the directory they belong to", strings.Join(lines, "\n"))
			o.Seq = seqs
			return o
		},
	}
}
