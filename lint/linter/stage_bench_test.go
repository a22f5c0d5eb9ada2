package linter_test

// The cost of each stage per line, over the transcript of BenchmarkLintStream
// (issue 11): parse alone; the parallel stage (parse, detection, single-message
// rules, schema); the schema check by the generated validators and by gojsonschema
// alone; the ordered stage (bookkeeping and sequence rules) alone.
//
//	go test ./lint/linter -run '^$' -bench Stage -benchmem

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/schema/generated"
	"github.com/aopkit/aopkit/lint/schema/ofrecord"
)

func benchLinesOf(b *testing.B) [][]byte {
	data, _ := benchTranscript(b)
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), linter.MaxMessage)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

func perLine(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/line")
}

func BenchmarkStageParse(b *testing.B) {
	lines := benchLinesOf(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			jsonread.Parse(bytes.TrimPrefix(l, []byte("AOF/1 ")))
		}
	}
	perLine(b, len(lines))
}

func BenchmarkStageUnit(b *testing.B) {
	lines := benchLinesOf(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, l := range lines {
			linter.BuildUnit("bench.jsonl", j, l)
		}
	}
	perLine(b, len(lines))
}

// schemaWork is every message of the transcript with its schema file.
type schemaJob struct {
	file string
	root *jsonread.Node
}

func schemaWork(b *testing.B) []schemaJob {
	var jobs []schemaJob
	for j, l := range benchLinesOf(b) {
		m := linter.BuildUnit("bench.jsonl", j, l)
		if m == nil || m.Root == nil {
			continue
		}
		p := lint.LookupProtocol(m.Protocol)
		if p == nil || p.Schema == nil || p.Schema(m.Kind) == "" {
			continue
		}
		jobs = append(jobs, schemaJob{p.Schema(m.Kind), m.Root})
	}
	return jobs
}

func BenchmarkStageSchemaGenerated(b *testing.B) {
	jobs := schemaWork(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			generated.Validate(j.file, j.root)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(jobs)), "ns/message")
}

func BenchmarkStageSchemaOfRecord(b *testing.B) {
	jobs := schemaWork(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			s, err := ofrecord.Compiled(j.file)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Validate(gojsonschema.NewRawLoader(j.root.Interface())); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(jobs)), "ns/message")
}

// BenchmarkStageSequence is the ordered stage alone: bookkeeping and the sequence
// rules over messages the parallel stage made beforehand.
func BenchmarkStageSequence(b *testing.B) {
	lines := benchLinesOf(b)
	units := linter.BuildUnits("bench.jsonl", lines)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := linter.ApplyUnits("bench.jsonl", units); res.Messages == 0 {
			b.Fatal("no message")
		}
	}
	perLine(b, len(lines))
}
