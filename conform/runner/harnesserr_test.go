package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/knownfail"
	"github.com/aopkit/aopkit/mockagent"
)

// fullDisk is a transcript file on a full file system: every write fails.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, syscall.ENOSPC }
func (fullDisk) Close() error              { return nil }

// TestHarnessErrorIsNotTheAgents (issue 33 item 8): transcripts that cannot be
// written (a full disk under --out) make every played scenario a harness error
// whose checks are HARNESS-ERROR, never NOT-TESTED or FAIL: a correct agent is
// not failed for the harness's trouble, and nothing in the report counts
// against it.
func TestHarnessErrorIsNotTheAgents(t *testing.T) {
	t.Parallel()
	ag, err := mockagent.Lookup("aop2")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{
		Protocol: "aop2", Command: []string{"mockagent", "--protocol", "aop2"}, Scenarios: builtin(t),
		Run: "aop2/1.2/response-ids,aop2/5/final-response", OutDir: t.TempDir(), NoConfirm: true,
		Launcher:         agentio.InProcess{Agent: ag},
		createTranscript: func(string) (io.WriteCloser, error) { return fullDisk{}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	played := 0
	for _, s := range rep.Scenarios {
		if s.Skipped {
			continue
		}
		played++
		if !strings.Contains(s.HarnessError, "no space left on device") {
			t.Errorf("%s: harness error %q, want the transcript's write error", s.ID, s.HarnessError)
		}
	}
	if played == 0 || rep.HarnessErrors != played {
		t.Fatalf("%d harness errors for %d scenarios played", rep.HarnessErrors, played)
	}
	for _, r := range rep.Results {
		if r.Verdict != conform.Skip && r.Verdict != conform.HarnessError {
			t.Errorf("%s in %s: %s (%s), want HARNESS-ERROR", r.Check, r.Scenario, r.Verdict, r.Message)
		}
	}
	if rep.Score.MustFailed || knownfail.MustFailed(rep) {
		t.Error("the harness's write errors count as the agent's MUST failures")
	}
}

// TestUnconfirmedFailure: a timing failure whose confirming run the harness
// could not play is HARNESS-ERROR, not the single run's FAIL.
func TestUnconfirmedFailure(t *testing.T) {
	t.Parallel()
	var sc *conform.Scenario
	for _, s := range builtin(t) {
		if s.ID == "aop2-heartbeat" {
			sc = s
		}
	}
	if sc == nil {
		t.Fatal("no aop2-heartbeat scenario")
	}
	var played []float64
	play := fakePlay(&played, func(k int, _ float64) fakeRun {
		if k == 1 {
			return fakeRun{verdict: conform.Fail}
		}
		return fakeRun{verdict: conform.NotTested, herr: "transcript: " + errors.New("no space left on device").Error()}
	})
	rep, err := Run(context.Background(), Options{
		Protocol: "aop2", Command: []string{"mockagent"}, Scenarios: []*conform.Scenario{sc},
		OutDir: t.TempDir(), play: play,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(played) != 2 {
		t.Fatalf("played %d runs, want the run and its confirmation", len(played))
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, fmt.Sprintf("%s %s", r.Check, r.Verdict))
		if r.Check == "aop2/6.1/heartbeat-interval" && (r.Verdict != conform.HarnessError || !strings.Contains(r.Message, "could not be played")) {
			t.Errorf("unconfirmed timing failure: %s: %s", r.Verdict, r.Message)
		}
	}
	if rep.HarnessErrors != 1 || knownfail.MustFailed(rep) {
		t.Errorf("harness errors %d, MUST failed %v: %v", rep.HarnessErrors, knownfail.MustFailed(rep), got)
	}
}
