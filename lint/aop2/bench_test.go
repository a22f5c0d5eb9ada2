package aop2_test

// The cost of AOP2's rules per message over the AOP2 messages of the generated
// transcript of the linter's benchmarks (issue 11): the single-message rules
// (schema apart) and the sequence group, each alone.
//
//	go test ./lint/aop2 -run '^$' -bench . -benchmem

import (
	"bufio"
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/aop2"
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
)

var (
	benchOnce sync.Once
	benchMsgs []*lint.Message
)

// aop2Messages is every AOP2 message of 20k generated messages (seed 1, the
// transcript of BenchmarkLintStream), built beforehand.
func aop2Messages(b *testing.B) []*lint.Message {
	benchOnce.Do(func() {
		var buf bytes.Buffer
		if _, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 1, Messages: 20000, InvalidEvery: 1000}); err != nil {
			panic(err)
		}
		sc := bufio.NewScanner(&buf)
		sc.Buffer(make([]byte, 0, 1<<20), linter.MaxMessage)
		aop2Sessions := map[string]bool{}
		for i := 0; sc.Scan(); i++ {
			if m := benchMessage(i, append([]byte(nil), sc.Bytes()...), aop2Sessions); m != nil {
				benchMsgs = append(benchMsgs, m)
			}
		}
	})
	if len(benchMsgs) == 0 {
		b.Fatal("no AOP2 message in the benchmark transcript")
	}
	return benchMsgs
}

// benchMessage makes the message of one line as the driver would: an AOP2
// message, bare or in a transcript/1 record, or a harness record of a session
// with AOP2 messages; nil for anything else.
func benchMessage(i int, line []byte, aop2Sessions map[string]bool) *lint.Message {
	root, _, err := jsonread.Parse(line)
	if err != nil || root.Kind != jsonread.Object {
		return nil
	}
	m := &lint.Message{Path: "bench.jsonl", Raw: line, Pos: lint.NewLineIndex(line, i+1, 1), Index: i}
	if root.Get("aopkit").String() == "transcript/1" {
		m.From, m.Session = root.Get("from").String(), root.Get("session").String()
		m.At, _ = time.Parse(time.RFC3339Nano, root.Get("at").String())
		if ev := root.Get("event").String(); ev != "" {
			if !aop2Sessions[m.Session] {
				return nil
			}
			m.Kind, m.Root = "harness:"+ev, root
			return m
		}
		if root.Get("protocol").String() != aop2.ID {
			return nil
		}
		root = root.Get("msg")
		if root == nil {
			return nil
		}
	}
	kind, dialect, conf := aop2.Detect(root, "")
	if conf == 0 {
		return nil
	}
	aop2Sessions[m.Session] = true
	m.Protocol, m.Kind, m.Dialect, m.Root = aop2.ID, kind, dialect, root
	return m
}

func perMessage(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/msg")
}

// BenchmarkRules runs AOP2's single-message rules other than the schema rule.
func BenchmarkRules(b *testing.B) {
	msgs := aop2Messages(b)
	type job struct {
		m     *lint.Message
		rules []*lint.Rule
	}
	var jobs []job
	for _, m := range msgs {
		var rs []*lint.Rule
		for _, r := range lint.Rules() {
			if r.Protocol == aop2.ID && r.Run != nil && !r.Schema && r.NewChecker == nil && !r.Retired && r.AppliesTo(m.Protocol, m.Kind) {
				rs = append(rs, r)
			}
		}
		jobs = append(jobs, job{m, rs})
	}
	var p lint.Pass
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			j.m.Parsed = nil // what the rules made of it: a new message each time
			for _, r := range j.rules {
				p.Reset(r, j.m)
				r.Run(&p)
			}
		}
	}
	perMessage(b, len(jobs))
}

// BenchmarkSequence runs the sequence group, one checker per session as the
// driver does, finished at the end.
func BenchmarkSequence(b *testing.B) {
	msgs := aop2Messages(b)
	var p lint.Pass
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runSessions(&p, msgs, nil, func() {})
	}
	perMessage(b, len(msgs))
}

// runSessions shows msgs to the sequence group as the driver does: one checker
// per session, finished at the session's scenario-end or at the end. after is
// called after each Observe and Finish (p holds what it reported), seen after
// each message was observed.
func runSessions(p *lint.Pass, msgs []*lint.Message, seen func(*lint.Message), after func()) {
	checkers := map[string]lint.Checker{}
	var order []string
	for _, m := range msgs {
		c := checkers[m.Session]
		if c == nil {
			c = aop2.SeqCorrelation.NewChecker()
			checkers[m.Session] = c
			order = append(order, m.Session)
		}
		p.Reset(aop2.SeqCorrelation, m)
		c.Observe(p)
		after()
		if seen != nil {
			seen(m)
		}
		if m.Kind == "harness:scenario-end" {
			p.Reset(aop2.SeqCorrelation, nil)
			c.Finish(p)
			after()
			delete(checkers, m.Session)
		}
	}
	for _, s := range order {
		if c := checkers[s]; c != nil {
			p.Reset(aop2.SeqCorrelation, nil)
			c.Finish(p)
			after()
		}
	}
}
