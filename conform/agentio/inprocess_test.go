package agentio

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aopkit/aopkit/mockagent"
)

// TestInProcessTerminate: an in-process agent stops at Terminate (Exit: SIGTERM)
// unless it ignores SIGTERM (IgnoreTerm): then it goes on working until Kill
// (Exit: SIGKILL), as a process that traps SIGTERM does.
func TestInProcessTerminate(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ignoreTerm bool
		want       string
	}{
		{"stops", false, "SIGTERM"},
		{"ignores", true, "SIGKILL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ag := &mockagent.Agent{Protocol: "test", Run: func(ctx context.Context, env mockagent.Env, _ string) int {
					for {
						select {
						case <-ctx.Done():
							return 0
						case <-time.After(time.Second):
							env.Stdout.Write([]byte("working\n"))
						}
					}
				}}
				c, err := InProcess{Agent: ag, IgnoreTerm: tc.ignoreTerm}.Launch(context.Background(), Spec{})
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					for range c.Lines() {
					}
				}()
				time.Sleep(1500 * time.Millisecond)
				c.Terminate()
				time.Sleep(5 * time.Second)
				synctest.Wait()
				select {
				case <-c.Done():
					if tc.ignoreTerm {
						t.Fatal("the agent that ignores SIGTERM stopped at Terminate")
					}
				default:
					if !tc.ignoreTerm {
						t.Fatal("the agent goes on after Terminate")
					}
					c.Kill()
					<-c.Done()
				}
				if got := c.Exit(); got.Signal != tc.want || got.Code != -1 {
					t.Errorf("exit %+v, want signal %s", got, tc.want)
				}
			})
		})
	}
}
