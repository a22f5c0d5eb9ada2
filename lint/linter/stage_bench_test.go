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
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/lint/schema/generated"
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
			s, err := schema.Compiled(j.file)
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

// BenchmarkStageParseArena is BenchmarkStageParse into one arena reset per line,
// as the one-worker driver parses.
func BenchmarkStageParseArena(b *testing.B) {
	lines := benchLinesOf(b)
	var ar jsonread.Arena
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			ar.Reset()
			ar.Parse(bytes.TrimPrefix(l, []byte("AOF/1 ")))
		}
	}
	perLine(b, len(lines))
}

// builtMessages is every protocol message of the transcript, built beforehand.
func builtMessages(b *testing.B) []*lint.Message {
	var out []*lint.Message
	for j, l := range benchLinesOf(b) {
		if m := linter.BuildUnit("bench.jsonl", j, l); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// BenchmarkStageRules is the single-message rules other than the schema rules,
// over messages parsed and detected beforehand.
func BenchmarkStageRules(b *testing.B) {
	msgs := builtMessages(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range msgs {
			linter.RunRules(m, false)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(msgs)), "ns/message")
}

// BenchmarkStageSchema is the schema rules as the driver runs them (generated
// validators, gojsonschema for the messages they do not pass), aop-output
// reports included.
func BenchmarkStageSchema(b *testing.B) {
	msgs := builtMessages(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range msgs {
			linter.RunRules(m, true)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(msgs)), "ns/message")
}

// framedLines generates n messages of the JSON protocols, every session framed
// as transcript/1 records or every one bare.
func framedLines(b *testing.B, framing transcriptgen.Framing, n int64) [][]byte {
	var buf bytes.Buffer
	cfg := transcriptgen.Config{Seed: 1, Messages: n, InvalidEvery: 1000, Framing: framing,
		Protocols: []string{"aop2", "aos", "aof", "orchmsg"}}
	if _, err := transcriptgen.Write(&buf, cfg); err != nil {
		b.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
}

// BenchmarkStageUnwrap is the parallel stage over the same sessions framed as
// transcript/1 records and bare: the difference of their ns/message is the cost
// of unwrapping a record (parse of the envelope, its checks, the harness events).
func BenchmarkStageUnwrap(b *testing.B) {
	for _, f := range []struct {
		name    string
		framing transcriptgen.Framing
	}{{"records", transcriptgen.Records}, {"bare", transcriptgen.Bare}} {
		b.Run(f.name, func(b *testing.B) {
			lines := framedLines(b, f.framing, 10000)
			var ar jsonread.Arena
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j, l := range lines {
					ar.Reset()
					linter.BuildUnitIn(&ar, "bench.jsonl", j, bytes.TrimSuffix(l, []byte("\n")))
				}
			}
			b.ReportMetric(10000*float64(b.N)/b.Elapsed().Seconds(), "messages/s")
		})
	}
}

// BenchmarkStageAopOutput is the parallel stage over the aop-output reports of
// the transcript alone (records holding a text report: detection, the report's
// parse, its rules and its schema check).
func BenchmarkStageAopOutput(b *testing.B) {
	var reports [][]byte
	for _, l := range benchLinesOf(b) {
		if bytes.Contains(l, []byte(`"text":"[AOP:`)) {
			reports = append(reports, l)
		}
	}
	if len(reports) == 0 {
		b.Fatal("no aop-output report in the transcript")
	}
	var ar jsonread.Arena
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, l := range reports {
			ar.Reset()
			linter.BuildUnitIn(&ar, "bench.jsonl", j, l)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reports)), "ns/message")
}
