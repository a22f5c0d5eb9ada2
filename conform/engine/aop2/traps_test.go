package aop2

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/testdeadline"
	"github.com/aopkit/aopkit/mockagent"
	mock "github.com/aopkit/aopkit/mockagent/aop2"
)

// An executor that fails its task, then makes its rollback snapshot a FIFO and
// the artifact a link to a file outside the workspace, neither hangs the engine
// nor makes it write through the link: the rollback fails (E_ROLLBACK_FAILED),
// the snapshot is reported changed, and the file outside is untouched.
func TestRollbackTraps(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(outside, []byte("victim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := mockagent.Lookup(Protocol)
	if err != nil {
		t.Fatal(err)
	}
	trap := &mockagent.Agent{Protocol: Protocol, Run: func(ctx context.Context, env mockagent.Env, fault string) int {
		code := base.Run(ctx, env, mock.FaultClobberSnapshot) // writes the artifact, reports failure
		ws := filepath.Join(env.Getenv("AOPKIT_SCRATCH"), "workspace")
		if env.Getenv("AOPKIT_SCRATCH") == "" {
			ws = filepath.Join(env.Dir, "workspace")
		}
		snap := filepath.Join(ws, ".aop_snapshots", "greeting.txt.before")
		os.MkdirAll(filepath.Dir(snap), 0o755)
		os.Remove(snap)
		if err := syscall.Mkfifo(snap, 0o600); err != nil {
			t.Error(err)
		}
		art := filepath.Join(ws, "src", "greeting.txt")
		os.Remove(art)
		if err := os.Symlink(outside, art); err != nil {
			t.Error(err)
		}
		return code
	}}
	done := make(chan run, 1)
	go func() {
		done <- playAgent(t, scenarioOf("rollback-traps", taskWith(t, nil), nil), trap, "", "", func(s string) { writeOriginal(t, s) })
	}()
	var r run
	select {
	case r = <-done:
	case <-testdeadline.Near(t):
		t.Fatal("the engine hangs")
	}
	if len(r.res.Rollback) != 1 || r.res.Rollback[0].Status != "FAILED" || !r.res.HasCode("E_ROLLBACK_FAILED") {
		t.Errorf("rollback %+v, codes %v", r.res.Rollback, r.res.CodeList())
	}
	if b, _ := os.ReadFile(outside); string(b) != "victim\n" {
		t.Errorf("the engine wrote through the link: %q", b)
	}
}

// The rollback never writes through a directory the executor made a link out of
// the workspace.
func TestRollbackStaysInWorkspace(t *testing.T) {
	outside := t.TempDir()
	base, err := mockagent.Lookup(Protocol)
	if err != nil {
		t.Fatal(err)
	}
	trap := &mockagent.Agent{Protocol: Protocol, Run: func(ctx context.Context, env mockagent.Env, fault string) int {
		code := base.Run(ctx, env, mock.FaultClobberSnapshot)
		scratch := env.Getenv("AOPKIT_SCRATCH")
		if scratch == "" {
			scratch = env.Dir
		}
		ws := filepath.Join(scratch, "workspace")
		// The snapshot back, so that the rollback has something to restore.
		snap := filepath.Join(ws, ".aop_snapshots", "greeting.txt.before")
		os.MkdirAll(filepath.Dir(snap), 0o755)
		os.WriteFile(snap, []byte("original\n"), 0o644)
		os.RemoveAll(filepath.Join(ws, "src"))
		if err := os.Symlink(outside, filepath.Join(ws, "src")); err != nil {
			t.Error(err)
		}
		return code
	}}
	r := playAgent(t, scenarioOf("rollback-out", taskWith(t, nil), nil), trap, "", "", func(s string) { writeOriginal(t, s) })
	if len(r.res.Rollback) != 1 || r.res.Rollback[0].Status != "FAILED" {
		t.Errorf("rollback %+v, codes %v", r.res.Rollback, r.res.CodeList())
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Errorf("the rollback wrote outside the workspace: %v", ents)
	}
}
