package enginetest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/fixtures/scenarios"
	"github.com/aopkit/aopkit/mockagent"
)

// Played is one scenario played by PlayVirtual.
type Played struct {
	Session *conform.Session
	// Transcript is the transcript/1 the harness wrote, the scratch directory's
	// path replaced by ${SCRATCH} (byte-stable: a reference transcript).
	Transcript []byte
	Err        error  // what the engine's Drive (through harness.End) returned
	Scratch    string // the scratch directory (removed when the test ends)
}

// PlayVirtual plays sc with an engine's Drive against the in-process mockagent
// (with fault, "" for the correct agent) through the real harness, inside its own
// synctest bubble: time is virtual and starts at 2000-01-01 UTC, so the run is
// fast and its transcript reproducible. engineFault is harness.Config.EngineFault.
func PlayVirtual(t *testing.T, sc *conform.Scenario, fault, engineFault string, drive func(*harness.H) error) Played {
	t.Helper()
	ag, err := mockagent.Lookup(sc.Protocol)
	if err != nil {
		t.Fatal(err)
	}
	return PlayAgent(t, sc, ag, fault, engineFault, drive)
}

// PlayIgnoringTerm is PlayVirtual with an agent that ignores SIGTERM, as the
// real mockagent process does under ignore-shutdown (it traps the signal):
// agentio.InProcess.IgnoreTerm, so that the harness's Terminate leaves it
// running and only its SIGKILL after the grace period stops it.
func PlayIgnoringTerm(t *testing.T, sc *conform.Scenario, fault string, drive func(*harness.H) error) Played {
	t.Helper()
	ag, err := mockagent.Lookup(sc.Protocol)
	if err != nil {
		t.Fatal(err)
	}
	return play(t, sc, agentio.InProcess{Agent: ag, Fault: fault, IgnoreTerm: true}, "", drive)
}

// PlayAgent is PlayVirtual with another in-process agent (a test's scripted one).
func PlayAgent(t *testing.T, sc *conform.Scenario, ag *mockagent.Agent, fault, engineFault string, drive func(*harness.H) error) Played {
	t.Helper()
	return play(t, sc, agentio.InProcess{Agent: ag, Fault: fault}, engineFault, drive)
}

// play plays sc with drive against the in-process agent of launcher (its
// Settle set here) in a synctest bubble.
func play(t *testing.T, sc *conform.Scenario, launcher agentio.InProcess, engineFault string, drive func(*harness.H) error) Played {
	t.Helper()
	fault := launcher.Fault
	scratch, err := os.MkdirTemp("", "aopkit-engine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	if real, err := filepath.EvalSymlinks(scratch); err == nil {
		scratch = real
	}
	cmd := []string{"mockagent", "--protocol", sc.Protocol}
	if fault != "" {
		cmd = append(cmd, "--fault", fault)
	}
	out := Played{Scratch: scratch}
	var buf bytes.Buffer
	// Settle: an agent's HTTP exchanges with an engine serving in memory
	// (aos) wait for the harness to catch up, so the order is one.
	launcher.Settle = synctest.Wait
	synctest.Test(t, func(t *testing.T) {
		h := harness.New(context.Background(), harness.Config{Scenario: sc, Transcript: &buf,
			Launcher: launcher,
			Command:  cmd, Scratch: scratch, EngineFault: engineFault})
		out.Err = h.End(drive(h))
		out.Session = h.Session()
	})
	out.Transcript = bytes.ReplaceAll(buf.Bytes(), []byte(scratch), []byte("${SCRATCH}"))
	return out
}

// Builtin returns the shipped scenarios of a protocol (fixtures/scenarios); it
// fails the test when there are none.
func Builtin(t *testing.T, protocol string) []*conform.Scenario {
	t.Helper()
	ss, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var out []*conform.Scenario
	for _, sc := range ss {
		if sc.Protocol == protocol {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s scenarios", protocol)
	}
	return out
}

// Scenario is the shipped scenario id of protocol.
func Scenario(t *testing.T, protocol, id string) *conform.Scenario {
	t.Helper()
	for _, sc := range Builtin(t, protocol) {
		if sc.ID == id {
			return sc
		}
	}
	t.Fatalf("no scenario %s", id)
	return nil
}
