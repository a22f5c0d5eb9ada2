package harness

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// TestTranscriptFlushedPerRecord (issue 33 item 10): every record is on the
// transcript's writer as soon as it is recorded, not when the scenario ends, so
// a harness killed mid-run leaves readable evidence.
func TestTranscriptFlushedPerRecord(t *testing.T) {
	var buf bytes.Buffer
	h := New(context.Background(), Config{Scenario: &conform.Scenario{ID: "s", Protocol: "aop2"}, Transcript: &buf})
	lines := func() []string { return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") }
	if l := lines(); len(l) != 1 || !strings.Contains(l[0], `"event":"scenario-start"`) {
		t.Fatalf("after New the transcript holds %q, want the scenario-start record", buf.String())
	}
	h.Event(1, conform.EventAgentStart, conform.Detail{})
	if l := lines(); len(l) != 2 || !strings.Contains(l[1], `"event":"agent-start"`) || !strings.HasSuffix(buf.String(), "\n") {
		t.Fatalf("after a record the transcript holds %q, want it whole", buf.String())
	}
	if err := h.End(nil); err != nil {
		t.Fatal(err)
	}
	if l := lines(); len(l) != 3 {
		t.Fatalf("after End: %d lines", len(l))
	}
}
