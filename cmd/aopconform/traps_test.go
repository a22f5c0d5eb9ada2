package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// harnessRSSBound is the documented bound on aopconform's own memory while an
// implementation under test sets traps (docs/aopconform.md, "Containment").
const harnessRSSBound = 200 << 20

// An aof agent that turns the files the harness reads (its heartbeat, its task
// file) into /dev/zero or a FIFO neither grows aopconform past its bound nor holds
// it past its deadlines: the trap is refused, the agent fails, the run ends.
func TestHostileFileTraps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real agents")
	}
	t.Parallel()
	traps := map[string]string{
		"heartbeat-zero": `ln -sf /dev/zero "$AOF_RUN_DIR/run_heartbeat.json"`,
		"heartbeat-fifo": `rm -f "$AOF_RUN_DIR/run_heartbeat.json"; mkfifo "$AOF_RUN_DIR/run_heartbeat.json"`,
		"taskfile-zero":  `ln -sf /dev/zero "$AOF_TASK_FILE"`,
		"taskfile-fifo":  `rm -f "$AOF_TASK_FILE"; mkfifo "$AOF_TASK_FILE"`,
	}
	for name, trap := range traps {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			agent := filepath.Join(dir, "agent.sh")
			script := "#!/bin/sh\n" + trap + "\nsleep 2\nexit 0\n"
			if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			// A hang guard, not a speed assertion: every scenario has a deadline
			// of seconds; a harness held by a FIFO would never end.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "aopconform", "run", "--protocol", "aof", "--run", "aof/",
				"--out", filepath.Join(dir, "out"), "--", agent)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("aopconform hung on the trap:\n%s", out)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("exit %v, want 1 (the agent fails):\n%s", err, clipOut(string(out)))
			}
			ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			if !ok {
				t.Fatal("no rusage")
			}
			// Maxrss is in KiB on Linux. Under the race detector every process
			// of the run carries its shadow memory (442 MiB measured for each trap
			// alike): the documented bound is held in
			// normal builds, and a looser one still catches the old growth (12 to
			// 23 GiB).
			bound := int64(harnessRSSBound)
			if raceEnabled {
				bound = 1 << 30
			}
			rss := ru.Maxrss << 10
			t.Logf("aopconform max RSS %d MiB", rss>>20)
			if rss > bound {
				t.Errorf("aopconform reached %d MiB (bound %d MiB)", rss>>20, bound>>20)
			}
			if strings.Contains(string(out), "HARNESS ERROR") {
				t.Errorf("the agent's trap was taken for the harness's trouble:\n%s", clipOut(string(out)))
			}
		})
	}
}
