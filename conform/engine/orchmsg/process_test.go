package orchmsg

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
)

// TestRealProcess runs the engine on the wall clock against cmd/mockagent as a real
// process. The task is short; assertions are about decisions, not durations.
func TestRealProcess(t *testing.T) {
	bin := enginetest.BuildMockagent(t)
	for _, tc := range []struct {
		name, fault string
		state       string
		killed      bool
	}{
		{name: "happy-path", state: "completed"},
		{name: "ignore-shutdown", fault: "ignore-shutdown", state: "completed", killed: true},
		{name: "unknown-message-type", fault: "unknown-message-type", state: "completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Task.Payload = map[string]any{"mockagent": map[string]any{"work_seconds": 1}}
			args := []string{bin, "--protocol", "orchmsg"}
			if tc.fault != "" {
				args = append(args, "--fault", tc.fault)
			}
			var buf bytes.Buffer
			cfg.Launcher, cfg.Clock = agentio.Process{Clock: clock.Real{}}, clock.Real{}
			cfg.Scratch, cfg.Args, cfg.Recorder = t.TempDir(), args, NewRecorder(&buf, Protocol, tc.name)
			cfg.GracePeriod, cfg.ShutdownDelay, cfg.Deadline = 500*time.Millisecond, 100*time.Millisecond, 30*time.Second
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.TaskState != tc.state {
				t.Errorf("task state %s, want %s\n%s", res.TaskState, tc.state, buf.String())
			}
			if res.HasCode("KILLED") != tc.killed {
				t.Errorf("codes %v; killed want %v (exit %+v)", res.Codes, tc.killed, res.Exit)
			}
			if !tc.killed && res.Exit.Code != 0 {
				t.Errorf("exit %+v", res.Exit)
			}
			if tc.fault == "unknown-message-type" && (len(res.ErrorCodes()) != 1 || res.ErrorCodes()[0] != "INVALID_MESSAGE_TYPE") {
				t.Errorf("error responses %v, want [INVALID_MESSAGE_TYPE]", res.ErrorCodes())
			}
		})
	}
}
