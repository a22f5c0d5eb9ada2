package aof_test

import (
	"path/filepath"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
)

// playIgnoringTermResult is play with an agent that ignores SIGTERM
// (enginetest.PlayIgnoringTerm), as the mockagent process does under
// ignore-shutdown.
func playIgnoringTermResult(t *testing.T, sc *conform.Scenario, fault string) result {
	t.Helper()
	p := enginetest.PlayIgnoringTerm(t, sc, fault, aof.Drive)
	if p.Err != nil {
		t.Fatalf("Drive: %v", p.Err)
	}
	st, err := aof.NewStore(filepath.Join(p.Scratch, "data"), clock.Real{})
	if err != nil {
		t.Fatal(err)
	}
	return result{store: st, sess: p.Session, p: p}
}
