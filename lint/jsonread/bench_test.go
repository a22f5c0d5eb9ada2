package jsonread_test

// The reader alone on the lines of a generated transcript (the one
// lint/linter's benchmarks use, 5,000 messages), as the one-worker driver
// parses them: into one arena reset per line, sharing the line's bytes; and the
// member lookups rules make most (Get of present and absent keys, Lookup).
//
//	go test ./lint/jsonread -run '^$' -bench . -benchmem

import (
	"bufio"
	"bytes"
	"sync"
	"testing"

	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	benchOnce  sync.Once
	benchLines [][]byte
	benchBytes int64
)

func lines(b *testing.B) [][]byte {
	benchOnce.Do(func() {
		var buf bytes.Buffer
		if _, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 1, Messages: 5000}); err != nil {
			panic(err)
		}
		sc := bufio.NewScanner(&buf)
		sc.Buffer(make([]byte, 0, 1<<20), 1<<24)
		for sc.Scan() {
			l := bytes.TrimPrefix(sc.Bytes(), []byte("AOF/1 "))
			benchLines = append(benchLines, append([]byte(nil), l...))
			benchBytes += int64(len(l))
		}
	})
	return benchLines
}

func BenchmarkArenaParse(b *testing.B) {
	ls := lines(b)
	var ar jsonread.Arena
	b.SetBytes(benchBytes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range ls {
			ar.Reset()
			ar.ParseShared(l)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ls)), "ns/line")
}

func BenchmarkGet(b *testing.B) {
	var roots []*jsonread.Node
	for _, l := range lines(b) {
		if n, _, err := jsonread.Parse(l); err == nil && n.Kind == jsonread.Object {
			roots = append(roots, n)
		}
	}
	keys := []string{"type", "id", "payload", "message_type", "jsonrpc", "method", "params", "result", "timestamp", "zz_absent", "x"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, n := range roots {
			for _, k := range keys {
				n.Get(k)
			}
			n.Lookup("/payload/task_id")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(roots)*(len(keys)+1)), "ns/lookup")
}
