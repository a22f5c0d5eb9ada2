package aos_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/mockagent"
)

// playIgnoringTerm is enginetest.PlayVirtual with an agent that ignores SIGTERM
// as the real mockagent process does under ignore-shutdown (it traps the
// signal): agentio.InProcess.IgnoreTerm, so that the harness's Terminate leaves
// it running and only its SIGKILL after the grace period stops it.
func playIgnoringTerm(t *testing.T, sc *conform.Scenario, fault string) enginetest.Played {
	t.Helper()
	ag, err := mockagent.Lookup(sc.Protocol)
	if err != nil {
		t.Fatal(err)
	}
	scratch, err := os.MkdirTemp("", "aopkit-engine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	if real, err := filepath.EvalSymlinks(scratch); err == nil {
		scratch = real
	}
	out := enginetest.Played{Scratch: scratch}
	var buf bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		h := harness.New(context.Background(), harness.Config{Scenario: sc, Transcript: &buf,
			Launcher: agentio.InProcess{Agent: ag, Fault: fault, Settle: synctest.Wait, IgnoreTerm: true},
			Command:  []string{"mockagent", "--protocol", sc.Protocol, "--fault", fault}, Scratch: scratch})
		out.Err = h.End(aos.Drive(h))
		out.Session = h.Session()
	})
	out.Transcript = bytes.ReplaceAll(buf.Bytes(), []byte(scratch), []byte("${SCRATCH}"))
	return out
}
