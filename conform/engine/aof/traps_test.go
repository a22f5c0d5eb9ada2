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
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/internal/testdeadline"
	"github.com/aopkit/aopkit/mockagent"
)

// trapAgent turns a file the harness reads into a trap, then works a while and
// exits 0: fault "hb-zero" links run_heartbeat.json to /dev/zero, "hb-fifo" makes
// it a FIFO, "hb-big" writes 5 MiB into it, "task-fifo" makes the task file a
// FIFO, "result-fifo" makes run_result.json a FIFO, "status-fifo" replaces the
// task's status directory with a FIFO.
// outsideDir is where "rundir-out" points the run directory.
var outsideDir string

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
	case "rundir-out":
		// The run directory, where the harness writes run.json on expiry, made
		// a link to a directory outside the data directory.
		rd := filepath.Clean(env.Getenv("AOF_RUN_DIR"))
		if err = os.RemoveAll(rd); err == nil {
			err = os.Symlink(outsideDir, rd)
		}
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
	outsideDir = t.TempDir()
	for _, c := range []struct{ fault, file, reason string }{
		{"hb-zero", "run_heartbeat.json", "symbolic link leads outside the root"},
		{"hb-fifo", "run_heartbeat.json", "not a regular file (a named pipe)"},
		{"hb-big", "run_heartbeat.json", "larger than 4 MiB"},
		{"task-fifo", taskID + ".md", "not a regular file (a named pipe)"},
		{"result-fifo", "run_result.json", "not a regular file (a named pipe)"},
		{"status-fifo", "in-progress", "not a directory"},
		{"rundir-out", "run_heartbeat.json", "symbolic link leads outside the root"},
	} {
		t.Run(c.fault, func(t *testing.T) {
			done := make(chan enginetest.Played, 1)
			go func() { done <- enginetest.PlayAgent(t, sc, trapAgent, c.fault, "", aof.Drive) }()
			var p enginetest.Played
			select {
			case p = <-done:
			case <-testdeadline.Near(t):
				t.Fatal("the harness hangs")
			}
			var found *conform.Record
			for i := range p.Session.Records {
				r := &p.Session.Records[i]
				if r.From == "harness" && r.Event == conform.EventFileRefused {
					if f := conform.KeyFile.Get(r.Detail); strings.HasSuffix(f, "/"+c.file) && strings.Contains(conform.KeyReason.Get(r.Detail), c.reason) {
						found = r
					}
				}
			}
			if found == nil {
				t.Fatalf("no %s event for %s (%s); transcript:\n%s", conform.EventFileRefused, c.file, c.reason, p.Transcript)
			}
			if f := conform.KeyFile.Get(found.Detail); !strings.HasPrefix(f, "data/") {
				t.Errorf("file %q is not relative to the scratch directory", f)
			}
			chk := conform.LookupCheck(checks.RegularFilesID("aof"))
			if o := chk.Run(p.Session); o.Verdict != conform.Fail || !strings.Contains(o.Message, c.file) || !strings.Contains(o.Message, c.reason) {
				t.Errorf("%s: %s %q", chk.ID, o.Verdict, o.Message)
			}
			if ents, _ := os.ReadDir(outsideDir); len(ents) > 0 {
				t.Errorf("the harness wrote outside the data directory: %v", ents)
			}
		})
	}
}

// The harness's own writes into the data directory (a heartbeat, run.json on
// expiry) never go through a run directory the agent made a link out of it.
func TestStoreWritesStayInside(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	st, err := aof.NewStore(dir, clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	var refused []string
	st.Refused = func(path, reason string) { refused = append(refused, path+": "+reason) }
	if err := os.Symlink(out, st.RunDir(taskID)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.WriteHeartbeat(taskID, agentID, time.Second); err == nil {
		t.Error("the heartbeat was written through the link")
	}
	os.Remove(st.RunDir(taskID))
	os.Symlink(out, filepath.Join(dir, "runs", "elsewhere"))
	os.Symlink(filepath.Join("elsewhere", "deeper"), st.RunDir(taskID)) // not there yet: MkdirAll would create it outside
	if _, err := st.MarkRunExpired(taskID, "stale_heartbeat"); err == nil {
		t.Error("run.json was written through the link")
	}
	if ents, _ := os.ReadDir(out); len(ents) > 0 {
		t.Errorf("written outside the data directory: %v", ents)
	}
	if len(refused) < 2 || !strings.Contains(refused[0], "leads outside") {
		t.Errorf("refusals: %q", refused)
	}
}
