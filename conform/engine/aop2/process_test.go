package aop2

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
)

// TestRealProcess runs the engine on the wall clock against cmd/mockagent as a real
// process, in its own process group. Intervals are short and the assertions are
// about decisions, not durations.
func TestRealProcess(t *testing.T) {
	bin := enginetest.BuildMockagent(t)
	for _, tc := range []struct {
		name, fault string
		set         map[string]any
		state       string
		codes       []string
		signal      string
	}{
		{name: "happy-path", state: "COMPLETED", set: map[string]any{
			"task/extensions/x_mockagent":                 map[string]any{"work_seconds": 1.5},
			"execution_policy/heartbeat/interval_seconds": 0.5}},
		// SIGTERM is ignored: the engine kills the process group after the grace period.
		{name: "ignore-shutdown", fault: "ignore-shutdown", state: "FAILED", codes: []string{"E_TIMEOUT"}, signal: "SIGKILL", set: map[string]any{
			"task/extensions/x_mockagent":                 map[string]any{"work_seconds": 30},
			"execution_policy/heartbeat/interval_seconds": 0.5,
			"guard_rails/timeout_seconds":                 1}},
		// A correct executor stops on SIGTERM: no SIGKILL is needed.
		{name: "exceed-timeout", fault: "exceed-timeout", state: "FAILED", codes: []string{"E_TIMEOUT"}, set: map[string]any{
			"execution_policy/heartbeat/interval_seconds": 1,
			"guard_rails/timeout_seconds":                 1}},
		{name: "crash-mid-task", fault: "crash-mid-task", state: "FAILED", codes: []string{"E_PROCESS_CRASH"}, set: map[string]any{
			"task/extensions/x_mockagent": map[string]any{"work_seconds": 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scratch := t.TempDir()
			var buf bytes.Buffer
			args := []string{bin, "--protocol", "aop2"}
			if tc.fault != "" {
				args = append(args, "--fault", tc.fault)
			}
			cfg := Config{
				Launcher: agentio.Process{Clock: clock.Real{}}, Clock: clock.Real{},
				Scratch: scratch, Recorder: NewRecorder(&buf, Protocol, tc.name), Args: args,
				Grace: 500 * time.Millisecond,
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := Run(ctx, cfg, taskWith(t, tc.set))
			if err != nil {
				t.Fatal(err)
			}
			if res.State != tc.state {
				t.Errorf("state %s, want %s; codes %v\n%s", res.State, tc.state, res.CodeList(), buf.String())
			}
			if got := res.CodeList(); len(got) != len(tc.codes) || (len(got) > 0 && got[0] != tc.codes[0]) {
				t.Errorf("codes %v, want %v", got, tc.codes)
			}
			if tc.signal != "" && res.Attempts[0].Signal != tc.signal {
				t.Errorf("the executor ended by %q, want %s", res.Attempts[0].Signal, tc.signal)
			}
			if tc.fault == "exceed-timeout" && strings.Contains(buf.String(), `"event":"kill"`) {
				t.Errorf("the executor needed SIGKILL after SIGTERM:\n%s", buf.String())
			}
			if tc.state == "COMPLETED" {
				if _, err := os.Stat(filepath.Join(scratch, "workspace", "src", "greeting.txt")); err != nil {
					t.Errorf("the executor's file: %v", err)
				}
			}
		})
	}
}
