package aof_test

import (
	"context"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
)

// TestRealProcess runs mockagent as a process on the wall clock, with a short TTL.
func TestRealProcess(t *testing.T) {
	bin := enginetest.BuildMockagent(t)
	for _, c := range []struct {
		fault, status, run string
		ttl                time.Duration
	}{
		// The correct agent heartbeats every TTL/3: a TTL of 4 s leaves it more than
		// 2.6 s of scheduling delay on a loaded machine before a reclaim could happen.
		// The faulty ones stop heartbeating; their reclaim only grows more certain as
		// time passes, so a short TTL keeps them quick without making them flaky.
		{"", aof.Review, "running", 4 * time.Second},
		{"crash-mid-task", aof.Ready, "expired", 600 * time.Millisecond},
		{"hang", aof.Ready, "expired", 600 * time.Millisecond},
	} {
		t.Run("fault="+c.fault, func(t *testing.T) {
			clk := clock.Real{}
			s, err := aof.NewSession(clk, aof.Config{Scratch: t.TempDir(), Scenario: "aof/process", TaskID: taskID,
				AgentID: agentID, TTL: c.ttl}, nil)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{bin, "--protocol", "aof"}
			if c.fault != "" {
				args = append(args, "--fault", c.fault)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := agentio.Process{Clock: clk}.Launch(ctx, agentio.Spec{Dir: s.Cfg.Scratch, Env: s.Env(), Args: args})
			if err != nil {
				t.Fatal(err)
			}
			exit := s.Drive(ctx, conn, clk, aof.Options{PollInterval: 100 * time.Millisecond, Deadline: 30 * time.Second})
			if c.fault == "hang" && !hasHarnessEvent(s, "signal") {
				t.Errorf("a hanging agent must be stopped (SIGTERM): exit %+v", exit)
			}
			task, err := s.Store.Get(taskID)
			if err != nil {
				t.Fatal(err)
			}
			run, _ := s.Store.ReadRun(taskID)
			if task.Status != c.status || run == nil || run.Status != c.run {
				t.Errorf("status %s, run %+v; want %s, %s\n%s", task.Status, run, c.status, c.run, s.Summary())
			}
		})
	}
}
