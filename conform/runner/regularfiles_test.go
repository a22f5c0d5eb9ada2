package runner

import (
	"slices"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/checks"
)

// The regular-files check is judged in a scenario when the harness refused a
// file the agent controls (or --run names it), never otherwise: a clean agent's
// results do not change.
func TestWithRegularFiles(t *testing.T) {
	sc := &conform.Scenario{ID: "s", Protocol: "aof", Checks: []string{"aof/bind/exit-zero"}}
	id := checks.RegularFilesID("aof")
	clean := &conform.Session{}
	if got := withRegularFiles(sc, clean, "", sc.Checks); slices.Contains(got, id) {
		t.Errorf("judged in a clean scenario: %v", got)
	}
	if got := withRegularFiles(sc, clean, "aof/bind/*", sc.Checks); !slices.Contains(got, id) {
		t.Errorf("--run names it, not judged: %v", got)
	}
	trapped := &conform.Session{Records: []conform.Record{{From: "harness", Event: conform.EventFileRefused,
		Detail: conform.Details(conform.KeyFile.Is("data/runs/T/run_heartbeat.json"), conform.KeyReason.Is("not a regular file (a named pipe): refused"))}}}
	got := withRegularFiles(sc, trapped, "", sc.Checks)
	if !slices.Contains(got, id) || len(sc.Checks) != 1 {
		t.Errorf("not judged after a refused file: %v (scenario's checks %v)", got, sc.Checks)
	}
	if !slices.Contains(selectableIDs(sc), id) {
		t.Error("--run/--skip cannot select it")
	}
}
