package aos_test

import (
	"bytes"
	"testing"

	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/internal/retaintest"
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
)

// TestRetention: the sequence checkers keep no string and no node of a line
// (the driver reuses its line buffer): over the fixtures and a generated
// transcript of aos sessions, framed as records and bare.
func TestRetention(t *testing.T) {
	lines := retaintest.Lines(t, "../../fixtures/aos")
	for _, framing := range []transcriptgen.Framing{transcriptgen.Records, transcriptgen.Mixed} {
		var buf bytes.Buffer
		if _, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 3, Messages: 600, InvalidEvery: 50,
			Protocols: []string{"aos"}, Framing: framing}); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(buf.Bytes(), []byte("\n"))...)
	}
	retaintest.Check(t, "aos", lines)
}
