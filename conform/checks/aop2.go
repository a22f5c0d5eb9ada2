package checks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// numOrNil is a number as lint/spec/aop2 takes it (nil: not set).
func numOrNil(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}

// aop2Responses returns the RESPONSE messages of attempt n.
func aop2Responses(s *conform.Session, n int) []*conform.Record { return s.ByKey(n, "RESPONSE") }

// aop2Final returns the single RESPONSE of the last attempt, or a failing outcome.
func aop2Final(s *conform.Session) (*conform.Record, any, *conform.Outcome) {
	a := s.Last()
	if a == nil {
		o := conform.NotTestedf("the agent was never started")
		return nil, nil, &o
	}
	rs := aop2Responses(s, a.N)
	if len(rs) == 0 {
		o := aop2NoResponse(s, a)
		return nil, nil, &o
	}
	return rs[len(rs)-1], decode(rs[len(rs)-1].Msg), nil
}

// aop2NoResponse is the outcome of a check that reads the RESPONSE of attempt a
// when there is none: the missing RESPONSE is the root cause, reported by
// aop2/5/final-response.
func aop2NoResponse(s *conform.Session, a *conform.Attempt) conform.Outcome {
	return conform.NotJudgedf("aop2/5/final-response", "attempt %d sent no RESPONSE; %s", a.N, describeAttempt(s, a))
}

func describeAttempt(s *conform.Session, a *conform.Attempt) string {
	msgs := s.AgentMsgs(a.N)
	keys := map[string]int{}
	for _, m := range msgs {
		keys[orDash(m.Key)]++
	}
	var ks []string
	for k, n := range keys {
		ks = append(ks, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(ks)
	text := len(s.AgentLines(a.N, "stdout")) - len(msgs)
	return fmt.Sprintf("messages: [%s], other stdout lines: %d, %s", strings.Join(ks, " "), text, describeExit(a))
}

func orDash(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// aop2Task decodes the TASK of attempt n.
func aop2Task(s *conform.Session, n int) any {
	a := s.Attempt(n)
	if a == nil {
		return nil
	}
	return decode(a.Input)
}

func boolAt(v any, keys ...string) bool {
	b, _ := field(v, keys...).(bool)
	return b
}

// aop2HeartbeatEvery is the heartbeat interval the TASK of attempt a asks for
// (false: heartbeats are not enabled).
func aop2HeartbeatEvery(a *conform.Attempt) (time.Duration, bool) {
	task := decode(a.Input)
	if !boolAt(task, "execution_policy", "heartbeat", "enabled") {
		return 0, false
	}
	iv, ok := num(task, "execution_policy", "heartbeat", "interval_seconds")
	interval, _ := aop2spec.Heartbeat(numOrNil(iv, ok), nil)
	return interval, true
}

var aop2NonTerminal = map[string]bool{"IN_PROGRESS": true, "PENDING": true, "RUNNING": true, "QUEUED": true, "STARTED": true, "": true}

// badExtensionKeys lists the pointers of the extensions keys that lack the x_
// prefix (lint/spec/aop2, as AOP2-EXT-001).
func badExtensionKeys(v any) []string {
	var out []string
	aop2spec.BadExtensionKeys(v, func(ptr, _ string) { out = append(out, ptr) })
	return out
}
