package runner

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
			// Records at the same virtual instant from two sources (an aof file
			// write and a stdout line) may come in either order: compare them
			// without seq, sorted.
			if _, again := playVirtual(t, sc, ""); !sameRecords(first, again) {
				t.Errorf("two runs differ:\n%s\n%s", first, again)
			}
		})
	}
}

var seqField = regexp.MustCompile(`"seq":[0-9]+,`)

func sameRecords(a, b []byte) bool {
	norm := func(x []byte) []string {
		lines := strings.Split(seqField.ReplaceAllString(string(x), ""), "\n")
		slices.Sort(lines)
		return lines
	}
	return slices.Equal(norm(a), norm(b))
}
