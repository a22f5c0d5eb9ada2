package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/mockagent"
)

// TestVirtualTime plays every scenario of a protocol against the in-process
// mockagent inside a synctest bubble: the harness runs on virtual time, so the
// run is fast and its transcripts are the same every time.
func TestVirtualTime(t *testing.T) {
	for _, proto := range []string{"aop2", "orchmsg", "aop-output", "aof"} {
		t.Run(proto, func(t *testing.T) {
			ag, err := mockagent.Lookup(proto)
			if err != nil {
				t.Fatal(err)
			}
			var first map[string][]byte
			for round := 0; round < 2; round++ {
				out := t.TempDir()
				var rep *conform.Report
				synctest.Test(t, func(t *testing.T) {
					rep, err = Run(context.Background(), Options{
						Protocol: proto, Command: []string{"mockagent", "--protocol", proto}, Scenarios: builtin(t),
						OutDir: out, Parallel: 1,
						Launcher: agentio.InProcess{Agent: ag},
					})
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rep.Results {
					if r.Verdict == conform.Fail {
						t.Errorf("%s %s: %s", r.Scenario, r.Check, r.Message)
					}
				}
				files, _ := filepath.Glob(filepath.Join(out, "*.jsonl"))
				got := map[string][]byte{}
				for _, f := range files {
					b, _ := os.ReadFile(f)
					got[filepath.Base(f)] = b
				}
				if first == nil {
					first = got
					continue
				}
				for k, v := range first {
					if string(got[k]) != string(v) {
						t.Errorf("%s differs between two runs:\n%s\n%s", k, v, got[k])
					}
				}
			}
		})
	}
}
