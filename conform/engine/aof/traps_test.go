package aof_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/checks"
	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/mockagent"
)

// trapAgent turns a file the harness reads into a trap, then works a while and
// exits 0: fault "hb-zero" links run_heartbeat.json to /dev/zero, "hb-fifo" makes
// it a FIFO, "hb-big" writes 5 MiB into it, "task-fifo" makes the task file a
// FIFO, "result-fifo" makes run_result.json a FIFO, "status-fifo" replaces the
// task's status directory with a FIFO.
var trapAgent = &mockagent.Agent{Protocol: "aof", Run: func(ctx context.Context, env mockagent.Env, fault string) int {
	hb := filepath.Join(env.Getenv("AOF_RUN_DIR"), "run_heartbeat.json")
	var err error
	switch fault {
	case "hb-zero":
		os.Remove(hb)
		err = os.Symlink("/dev/zero", hb)
	case "hb-fifo":
		os.Remove(hb)
		err = syscall.Mkfifo(hb, 0o600)
	case "hb-big":
		err = os.WriteFile(hb, make([]byte, 5<<20), 0o644)
	case "task-fifo":
		os.Remove(env.Getenv("AOF_TASK_FILE"))
		err = syscall.Mkfifo(env.Getenv("AOF_TASK_FILE"), 0o600)
	case "result-fifo":
		err = syscall.Mkfifo(filepath.Join(env.Getenv("AOF_RUN_DIR"), "run_result.json"), 0o600)
	case "status-fifo":
		dir := filepath.Dir(env.Getenv("AOF_TASK_FILE"))
		if err = os.RemoveAll(dir); err == nil {
			err = syscall.Mkfifo(dir, 0o600)
		}
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "trap:", err)
		return 3
	}
	select {
	case <-ctx.Done():
	case <-env.Clock.After(2 * time.Second):
	}
	return 0
}}

// An agent that turns a file the harness reads (its heartbeat, its task file,
// its run result) into a link to /dev/zero, a FIFO or a 5 MiB file neither hangs
// nor grows the harness: the read is refused, the run ends, and the transcript
// holds a file-refused event naming the file and why, which fails the agent's
// aof/bind/regular-files.
func TestAgentFileTraps(t *testing.T) {
	sc := (scenario{name: "trap"}).conformScenario(t)
	for _, c := range []struct{ fault, file, reason string }{
		{"hb-zero", "run_heartbeat.json", "symbolic link leads outside the root"},
		{"hb-fifo", "run_heartbeat.json", "not a regular file (a named pipe)"},
		{"hb-big", "run_heartbeat.json", "larger than 4 MiB"},
		{"task-fifo", taskID + ".md", "not a regular file (a named pipe)"},
		{"result-fifo", "run_result.json", "not a regular file (a named pipe)"},
		{"status-fifo", "in-progress", "not a directory"},
	} {
		t.Run(c.fault, func(t *testing.T) {
			done := make(chan enginetest.Played, 1)
			go func() { done <- enginetest.PlayAgent(t, sc, trapAgent, c.fault, "", aof.Drive) }()
			var p enginetest.Played
			select {
			case p = <-done:
			case <-time.After(time.Minute):
				t.Fatal("the harness hangs")
			}
			var found *conform.Record
			for i := range p.Session.Records {
				r := &p.Session.Records[i]
				if r.From == "harness" && r.Event == checks.FileRefusedEvent {
					if f, _ := r.Detail["file"].(string); strings.HasSuffix(f, "/"+c.file) && strings.Contains(fmt.Sprint(r.Detail["reason"]), c.reason) {
						found = r
					}
				}
			}
			if found == nil {
				t.Fatalf("no %s event for %s (%s); transcript:\n%s", checks.FileRefusedEvent, c.file, c.reason, p.Transcript)
			}
			if f := found.Detail["file"].(string); !strings.HasPrefix(f, "data/") {
				t.Errorf("file %q is not relative to the scratch directory", f)
			}
			chk := conform.LookupCheck(checks.RegularFilesID("aof"))
			if o := chk.Run(p.Session); o.Verdict != conform.Fail || !strings.Contains(o.Message, c.file) || !strings.Contains(o.Message, c.reason) {
				t.Errorf("%s: %s %q", chk.ID, o.Verdict, o.Message)
			}
		})
	}
}
