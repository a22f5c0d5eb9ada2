package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"testing/synctest"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/mockagent"
)

// playVirtual plays one scenario against the in-process mockagent inside a
// synctest bubble (virtual time starting at 2000-01-01) and returns its report
// and transcript, the scratch directory's path replaced by ${SCRATCH}.
func playVirtual(t *testing.T, sc *conform.Scenario, fault string) (*conform.Report, []byte) {
	t.Helper()
	ag, err := mockagent.Lookup(sc.Protocol)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var rep *conform.Report
	synctest.Test(t, func(t *testing.T) {
		rep, err = Run(context.Background(), Options{
			Protocol: sc.Protocol, Command: []string{"mockagent", "--protocol", sc.Protocol},
			Scenarios: []*conform.Scenario{sc}, OutDir: out, Parallel: 1,
			Launcher: agentio.InProcess{Agent: ag, Fault: fault},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("%d transcripts", len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	scratch := regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/aopconform-[^/"]*`)
	return rep, scratch.ReplaceAll(b, []byte("${SCRATCH}"))
}

// TestVirtualTime plays every scenario of four protocols against the in-process
// mockagent on virtual time: the correct agent passes, and two runs write the
// same transcript.
func TestVirtualTime(t *testing.T) {
	for _, sc := range builtin(t) {
		if sc.Protocol == "aos" { // its agent talks HTTP over loopback: not virtual
			continue
		}
		t.Run(sc.ID, func(t *testing.T) {
			rep, first := playVirtual(t, sc, "")
			for _, r := range rep.Results {
				if r.Verdict == conform.Fail {
					t.Errorf("%s: %s", r.Check, r.Message)
				}
			}
			// Records at one virtual instant come in one order (agentio.InProcess
			// keeps the agent's write order; aof records a heartbeat written
			// before a line before it): the transcripts are byte-identical.
			if _, again := playVirtual(t, sc, ""); !bytes.Equal(first, again) {
				t.Errorf("two runs differ:\n%s\n%s", first, again)
			}
		})
	}
}
