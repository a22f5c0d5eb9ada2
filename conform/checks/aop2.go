package checks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// orZero is a decoded message, or the zero message (every member absent, as
// the walks of decoded JSON read a line that is no JSON object) when err says
// the line is none.
func orZero[T any](v *T, err error) *T {
	if err != nil {
		return new(T)
	}
	return v
}

// aop2Memo is what the aop2 checks decode once per session (sessionMemo): each
// message's header (nil: the line is no JSON object) and its body as a
// RESPONSE, a TASK or an EVENT, and the TASK of each attempt.
type aop2Memo struct {
	header perRecord[*aop2spec.Envelope]
	resp   perRecord[*aop2spec.Response]
	task   perRecord[*aop2spec.Task]
	event  perRecord[*aop2spec.Event]
	input  perAttempt[*aop2spec.Task]
}

// aop2Header, aop2Resp, aop2SubTask and aop2Event read the message of record
// r of s with lint/spec/aop2's decoder (DecodeHeader, then AsResponse, AsTask
// or AsEvent), once per session; the zero message when it is no JSON object
// (orZero). What they return is shared by the session's checks: read only.
func aop2Header(s *conform.Session, r *conform.Record) *aop2spec.Envelope {
	if e := aop2HeaderOf(s, r); e != nil {
		return e
	}
	return &aop2spec.Envelope{}
}

func aop2HeaderOf(s *conform.Session, r *conform.Record) *aop2spec.Envelope {
	return memoOf(s).aop2.header.get(s, r, func(r *conform.Record) *aop2spec.Envelope {
		e, _ := aop2spec.DecodeHeader(r.Msg)
		return e
	})
}

func aop2Resp(s *conform.Session, r *conform.Record) *aop2spec.Response {
	return aop2Body(s, r, &memoOf(s).aop2.resp, (*aop2spec.Envelope).AsResponse)
}

func aop2SubTask(s *conform.Session, r *conform.Record) *aop2spec.Task {
	return aop2Body(s, r, &memoOf(s).aop2.task, (*aop2spec.Envelope).AsTask)
}

func aop2Event(s *conform.Session, r *conform.Record) *aop2spec.Event {
	return aop2Body(s, r, &memoOf(s).aop2.event, (*aop2spec.Envelope).AsEvent)
}

// aop2Body is the body of record r's message read by as (AsResponse, AsTask
// or AsEvent) from its header, once per session in memo; the zero T when the
// line is no JSON object.
func aop2Body[T any](s *conform.Session, r *conform.Record, memo *perRecord[*T], as func(*aop2spec.Envelope) *T) *T {
	return memo.get(s, r, func(r *conform.Record) *T {
		if e := aop2HeaderOf(s, r); e != nil {
			return as(e)
		}
		return new(T)
	})
}

// aop2Input is the TASK attempt a of s was given, decoded once per session (the
// zero TASK when it is no JSON object): read only.
func aop2Input(s *conform.Session, a *conform.Attempt) *aop2spec.Task {
	return memoOf(s).aop2.input.get(s, a, func(a *conform.Attempt) *aop2spec.Task {
		return orZero(aop2spec.DecodeTask(a.Input))
	})
}

// isTrue reports whether an optional boolean member is true.
func isTrue(b *bool) bool { return b != nil && *b }

// aop2Responses returns the RESPONSE messages of attempt n.
func aop2Responses(s *conform.Session, n int) []*conform.Record { return s.ByKey(n, "RESPONSE") }

// aop2Final returns the single RESPONSE of the last attempt, or a failing outcome.
func aop2Final(s *conform.Session) (*conform.Record, *aop2spec.Response, *conform.Outcome) {
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
	return rs[len(rs)-1], aop2Resp(s, rs[len(rs)-1]), nil
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

// aop2Task decodes the TASK of attempt n (the zero TASK when there is none).
func aop2Task(s *conform.Session, n int) *aop2spec.Task {
	a := s.Attempt(n)
	if a == nil {
		return &aop2spec.Task{}
	}
	return aop2Input(s, a)
}

// aop2HeartbeatEvery is the heartbeat interval the TASK of attempt a asks for
// (false: heartbeats are not enabled).
func aop2HeartbeatEvery(s *conform.Session, a *conform.Attempt) (time.Duration, bool) {
	hb := aop2Input(s, a).ExecutionPolicy.Heartbeat
	if hb == nil || !hb.Enabled {
		return 0, false
	}
	interval, _ := aop2spec.Heartbeat(hb.IntervalSeconds, nil)
	return interval, true
}

var aop2NonTerminal = map[string]bool{"IN_PROGRESS": true, "PENDING": true, "RUNNING": true, "QUEUED": true, "STARTED": true, "": true}

// badExtensionKeys lists the pointers of the extensions keys of a message that
// lack the x_ prefix (lint/spec/aop2, as AOP2-EXT-001).
func badExtensionKeys(m *aop2spec.Envelope) []string {
	var out []string
	m.BadExtensionKeys(func(ptr, _ string) { out = append(out, ptr) })
	return out
}
