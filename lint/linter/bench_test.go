package linter_test

// Benchmarks of the driver with every registered rule (issue 6). They are run by
// internal/cmd/aopbench, which writes docs/benchmarks.md; by hand:
//
//	go test ./lint/linter -run '^$' -bench . -benchmem
//	AOPLINT_BENCH_MESSAGES=100000 go test ./lint/linter -run '^$' -bench 'Stream|Floor' -benchtime 3x
//
// BenchmarkDecodeFloor decodes the very bytes BenchmarkLintStream lints, line by
// line, with encoding/json into an any: the floor a linter cannot go below. Compare
// their msgs/s. No benchmark asserts a time.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/linter"
)

var (
	benchOnce  sync.Once
	benchData  []byte
	benchLines int64
)

// benchTranscript is the transcript of the benchmarks: the file named by
// $AOPLINT_BENCH_TRANSCRIPT, or $AOPLINT_BENCH_MESSAGES (default 20000) messages
// from the generator with seed 1, the same bytes internal/cmd/aopbench writes.
//
// It also turns the test build's line poisoning off for the benchmark
// (linter.WithoutLinePoisoning): the figures are aoplint's, not the test's.
func benchTranscript(b *testing.B) ([]byte, int64) {
	linter.WithoutLinePoisoning(b)
	benchOnce.Do(func() {
		if path := os.Getenv("AOPLINT_BENCH_TRANSCRIPT"); path != "" {
			data, err := os.ReadFile(path)
			if err != nil {
				panic(err)
			}
			benchData = data
		} else {
			n := int64(20000)
			if s := os.Getenv("AOPLINT_BENCH_MESSAGES"); s != "" {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					panic(err)
				}
				n = v
			}
			var buf bytes.Buffer
			if _, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 1, Messages: n, InvalidEvery: 1000}); err != nil {
				panic(err)
			}
			benchData = buf.Bytes()
		}
		benchLines = int64(bytes.Count(benchData, []byte("\n")))
	})
	if len(benchData) == 0 {
		b.Fatal("empty benchmark transcript")
	}
	return benchData, benchLines
}

// cpuTime is the process's user+system CPU time: on a shared machine it moves
// less than the wall clock, which counts the time other processes had the CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds lines/s (wall) and lines/cpu-s (CPU time since cpu0, all threads).
func report(b *testing.B, lines int64, cpu0 time.Duration) {
	n := float64(lines) * float64(b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "lines/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(n/cpu.Seconds(), "lines/cpu-s")
	}
}

// BenchmarkLintStream lints the transcript with one worker: every rule, schema
// validation, sequence rules.
func BenchmarkLintStream(b *testing.B) {
	data, lines := benchTranscript(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		res, err := linter.LintStream("bench.jsonl", bytes.NewReader(data), linter.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Messages == 0 {
			b.Fatal("no message linted")
		}
	}
	report(b, lines, cpu0)
}

// BenchmarkLintStreamParallel lints one copy of the transcript per goroutine
// (GOMAXPROCS of them): how throughput scales with cores when several inputs are
// linted at once. lines/s counts every goroutine's lines.
func BenchmarkLintStreamParallel(b *testing.B) {
	data, lines := benchTranscript(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := linter.LintStream("bench.jsonl", bytes.NewReader(data), linter.Options{}); err != nil {
				b.Error(err)
			}
		}
	})
	report(b, lines, cpu0)
}

// BenchmarkDecodeFloor is plain encoding/json over the same lines: json.Unmarshal
// of each line into an any (an "AOF/1 " prefix stripped first).
func BenchmarkDecodeFloor(b *testing.B) {
	data, lines := benchTranscript(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 1<<20), linter.MaxMessage)
		n := 0
		for sc.Scan() {
			line := bytes.TrimPrefix(sc.Bytes(), []byte("AOF/1 "))
			var v any
			if json.Unmarshal(line, &v) == nil {
				n++
			}
		}
		if n == 0 {
			b.Fatal("nothing decoded")
		}
	}
	report(b, lines, cpu0)
}

// BenchmarkLintBytesSmall lints the 2 KB aop2 RESPONSE of the spec, warm (schemas
// compiled): the per-file cost of a pre-commit hook, without process start.
func BenchmarkLintBytesSmall(b *testing.B) {
	linter.WithoutLinePoisoning(b)
	data := transcriptgen.SmallResponse
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res := linter.LintBytes("response.json", data, linter.Options{})
		if res.Messages != 1 {
			b.Fatalf("linted %d messages", res.Messages)
		}
	}
}

// BenchmarkDecodeSmall is the floor for BenchmarkLintBytesSmall.
func BenchmarkDecodeSmall(b *testing.B) {
	data := transcriptgen.SmallResponse
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}
