package aof_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
)

// TestObserveHeartbeat: a read that catches the agent mid-rewrite is no
// observation (retried, never recorded as an empty message); a complete rewrite is
// recorded once, at the file's modification time.
func TestObserveHeartbeat(t *testing.T) {
	t.Parallel()
	var tr bytes.Buffer
	s, err := aof.NewSession(clock.Real{}, aof.Config{Scratch: t.TempDir(), Scenario: "aof/observe", TaskID: taskID,
		AgentID: agentID, TTL: time.Second}, func(_ time.Time, _ conform.Actor, _ string, data []byte) { tr.Write(append(data, '\n')) })
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Store.RunDir(taskID), "run_heartbeat.json")
	if err := os.WriteFile(path, []byte(`{"taskId":"`+taskID+`","agentId":`), 0o644); err != nil {
		t.Fatal(err)
	}
	before := tr.Len()
	if _, ok := s.ObserveHeartbeat(); ok || tr.Len() != before {
		t.Fatalf("a partial write was observed: %s", tr.String()[before:])
	}
	beat := `{"taskId":"` + taskID + `","agentId":"` + agentID + `","lastHeartbeat":"2026-11-22T10:00:01.000Z","beatCount":2,"expiresAt":"2026-11-22T10:00:02.000Z"}`
	if err := os.WriteFile(path, []byte(beat), 0o644); err != nil {
		t.Fatal(err)
	}
	// A write after the lease, noticed later: it counts when it happened.
	time.Sleep(300 * time.Millisecond)
	if err := os.Chtimes(path, time.Now().Add(-100*time.Millisecond), time.Now().Add(-100*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mod := st.ModTime()
	at, ok := s.ObserveHeartbeat()
	if !ok || !at.Equal(mod) {
		t.Fatalf("complete write: at %v ok %v; want the modification time %v", at, ok, mod)
	}
	if !strings.Contains(tr.String()[before:], `"beatCount":2`) {
		t.Errorf("the heartbeat is not in the transcript: %s", tr.String()[before:])
	}
	if _, ok := s.ObserveHeartbeat(); ok {
		t.Error("an unchanged file was observed twice")
	}
}
