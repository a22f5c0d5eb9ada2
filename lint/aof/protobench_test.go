package aof_test

import (
	"bytes"
	"runtime"
	"testing"

	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/linter"
)

// BenchmarkTranscript lints, with one worker, a generated transcript of aof
// sessions only (the generator of BenchmarkLintStream, seed 1): ns, bytes and
// allocations per message of the whole pipeline, of which this package's rules
// and checkers are the part that changes here (issue 11).
//
//	go test ./lint/aof -run '^$' -bench Transcript -benchmem
func BenchmarkTranscript(b *testing.B) {
	var buf bytes.Buffer
	st, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 1, Messages: 20000, InvalidEvery: 1000,
		Protocols: []string{"aof"}})
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
