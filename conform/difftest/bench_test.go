package difftest

import (
	"bytes"
	"testing"

	aofspec "github.com/aopkit/aopkit/lint/spec/aof"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
	aosspec "github.com/aopkit/aopkit/lint/spec/aos"
	orchspec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// BenchmarkWireDecode decodes every message of a protocol's corpus (those the
// differential tests read) into its typed wire structs, one protocol a
// sub-benchmark; ns/msg is the mean time of one message.
//
//	go test ./conform/difftest -run '^$' -bench WireDecode -count 6
func BenchmarkWireDecode(b *testing.B) {
	var aofMsgs [][]byte
	_, msgs := aofMessages(b)
	for _, m := range msgs {
		aofMsgs = append(aofMsgs, bytes.TrimSpace(m))
	}
	var aop2Lines [][]byte
	corpusLines(b, []string{"../../fixtures/aop2", "../../testdata/speccorpus/aop2"}, func(_ string, line []byte) {
		aop2Lines = append(aop2Lines, line)
	})
	values := func(m map[string][]byte) [][]byte {
		var out [][]byte
		for _, v := range m {
			out = append(out, v)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		msgs   [][]byte
		decode func([]byte)
	}{
		{"aof", aofMsgs, func(m []byte) { aofspec.DecodeEnvelope(m) }},
		{"orchmsg", values(wireCorpus(b, "orchmsg")), func(m []byte) { orchspec.Decode(m) }},
		{"aos", values(wireCorpus(b, "aos")), func(m []byte) { aosspec.DecodeRequest(m) }},
		{"aop2", aop2Lines, func(m []byte) {
			if e, err := aop2spec.DecodeHeader(m); err == nil {
				e.AsTask()
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, m := range c.msgs {
					c.decode(m)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c.msgs)), "ns/msg")
		})
	}
}
