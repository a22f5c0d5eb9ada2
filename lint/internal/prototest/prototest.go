package prototest

import (
	"bytes"
	"runtime"
	"testing"

	_ "github.com/aopkit/aopkit/lint/all" // every protocol registered
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/linter"
)

// Retention runs Check over protocol's fixtures (fixtures/<protocol>, from a rule
// package's directory) and generated transcripts of its sessions, framed as
// records and mixed (bare sessions too).
func Retention(t *testing.T, protocol string) {
	lines := Lines(t, "../../fixtures/"+protocol)
	for _, framing := range []transcriptgen.Framing{transcriptgen.Records, transcriptgen.Mixed} {
		var buf bytes.Buffer
		if _, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 3, Messages: 600, InvalidEvery: 50,
			Protocols: []string{protocol}, Framing: framing}); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(buf.Bytes(), []byte("\n"))...)
	}
	Check(t, protocol, lines)
}

// BenchTranscript lints, with one worker, a generated transcript of protocol's
// sessions only (the generator of BenchmarkLintStream, seed 1, 20000 messages:
// long enough for the sequence state's bounds to be reached), and reports ns,
// bytes and allocations per message of the whole pipeline, of which the
// protocol's rules and checkers are the part its package changes.
func BenchTranscript(b *testing.B, protocol string) {
	var buf bytes.Buffer
	st, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 1, Messages: 20000, InvalidEvery: 1000,
		Protocols: []string{protocol}})
	if err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := linter.LintStream("bench.jsonl", bytes.NewReader(data), linter.Options{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		if int64(res.Messages) < st.Messages {
			b.Fatalf("%d messages linted, %d written", res.Messages, st.Messages)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	n := float64(b.N) * float64(st.Messages)
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/n, "B/msg")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/n, "allocs/msg")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/msg")
}
