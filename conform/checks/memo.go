package checks

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/aopkit/aopkit/conform"
)

// A session's checks read the same messages: every aof check walks the
// envelopes on stdout, every aop2 check reads the RESPONSE, every aos check the
// JSON-RPC requests. What they decode from a session is decoded once per session
// and shared by the checks of its scenario (sessionMemo): the messages of each
// record (perRecord), what each attempt was given (perAttempt) and the views of
// the whole session (lazy). The checks of a session may run at the same time:
// every part is computed once, under a lock, then only read. Nothing in it
// may be changed by a check: the decoded messages are shared.
//
// The memo belongs to the *conform.Session (held weakly: it goes with the
// session) and to its records as they were when it was made: a session whose
// records or attempts were appended to since (a test building one, a harness
// still recording) gets a new memo. A record changed in place is not noticed: a
// session is judged once its recording is over. No part of the memo may hold the
// *conform.Session itself (it would never be collected, nor its memo).

// lazy is a value computed once, on first use (sync.Once, except that a
// compute that panics is not done: the next get computes again, and panics
// again, as the check that called it did before the memo).
type lazy[T any] struct {
	mu   sync.Mutex
	done atomic.Bool
	v    T
}

func (l *lazy[T]) get(compute func() T) T {
	if l.done.Load() {
		return l.v
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done.Load() {
		l.v = compute()
		l.done.Store(true)
	}
	return l.v
}

// perRecord is a decode of each record's message, computed once per record on
// first use, by the record's place in the session (its seq).
type perRecord[T any] struct {
	cells lazy[[]lazy[T]]
}

// get is decode(r) for record r of s; a record that is not s's own (a copy)
// is decoded every time.
func (p *perRecord[T]) get(s *conform.Session, r *conform.Record, decode func(*conform.Record) T) T {
	cells := p.cells.get(func() []lazy[T] { return make([]lazy[T], len(s.Records)) })
	i := r.Seq - 1
	if i < 0 || i >= len(cells) || i >= len(s.Records) || &s.Records[i] != r {
		return decode(r)
	}
	return cells[i].get(func() T { return decode(r) })
}

// perAttempt is a decode of what each attempt was given (its Input), computed
// once per attempt on first use.
type perAttempt[T any] struct {
	cells lazy[[]lazy[T]]
}

// get is decode(a) for attempt a of s; an attempt that is not s's own is
// decoded every time.
func (p *perAttempt[T]) get(s *conform.Session, a *conform.Attempt, decode func(*conform.Attempt) T) T {
	cells := p.cells.get(func() []lazy[T] { return make([]lazy[T], len(s.Attempts)) })
	i := a.N - 1
	if i < 0 || i >= len(cells) || i >= len(s.Attempts) || s.Attempts[i] != a {
		return decode(a)
	}
	return cells[i].get(func() T { return decode(a) })
}

// sessionMemo is what the checks decode from one session, by protocol. Only
// the parts a check asks for are computed.
type sessionMemo struct {
	// The session as it was when the memo was made.
	records  int
	first    *conform.Record
	attempts int
	scenario *conform.Scenario

	aof       aofMemo
	aop2      aop2Memo
	aos       aosMemo
	orchmsg   orchmsgMemo
	aopOutput aopOutputMemo
}

// fits reports whether the memo was made of s's records and attempts as they are.
func (m *sessionMemo) fits(s *conform.Session) bool {
	return m.records == len(s.Records) && m.first == firstRecord(s) && m.attempts == len(s.Attempts) && m.scenario == s.Scenario
}

func firstRecord(s *conform.Session) *conform.Record {
	if len(s.Records) == 0 {
		return nil
	}
	return &s.Records[0]
}

// memos holds each session's memo, the session held weakly: a memo goes when
// its session is collected (runtime.AddCleanup).
var memos struct {
	sync.Mutex
	of map[weak.Pointer[conform.Session]]*sessionMemo
}

// memoOf is the memo of s (made on first use).
func memoOf(s *conform.Session) *sessionMemo {
	k := weak.Make(s)
	memos.Lock()
	defer memos.Unlock()
	m, ok := memos.of[k]
	if ok && m.fits(s) {
		return m
	}
	if memos.of == nil {
		memos.of = map[weak.Pointer[conform.Session]]*sessionMemo{}
	}
	if !ok {
		runtime.AddCleanup(s, forget, k)
	}
	// A new session, or one changed since its memo was made.
	m = &sessionMemo{records: len(s.Records), first: firstRecord(s), attempts: len(s.Attempts), scenario: s.Scenario}
	memos.of[k] = m
	return m
}

// forget drops the memo of a session that is gone.
func forget(k weak.Pointer[conform.Session]) {
	memos.Lock()
	delete(memos.of, k)
	memos.Unlock()
}
