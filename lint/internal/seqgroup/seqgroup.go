// Package seqgroup runs a protocol's sequence rules as one rule group
// (lint.Rule.Group): the driver makes one checker per stream, which runs each
// rule's own checker in turn, reporting under that rule (Pass.As), and lets them
// share what they read of each message (a state S of the protocol's: a parsed
// view, owned copies of the strings they keep).
package seqgroup

import (
	"sync"

	"github.com/aopkit/aopkit/lint"
)

// Entry is one rule of a group and how to make its checker over the shared S.
type Entry[S any] struct {
	Rule *lint.Rule
	Make func(*S) lint.Checker
}

// Register makes entries one group named name: every rule's NewChecker makes
// the group's checker (the driver calls the first rule's, by ID), which runs the
// entries' checkers in order over one shared S and calls forget on it after each
// message, so that S keeps no message past its turn (the driver may reuse it).
func Register[S any](name string, entries []Entry[S], forget func(*S)) {
	newGroup := func() lint.Checker {
		c := &checker[S]{forget: forget}
		c.members = make([]member, len(entries))
		for i, e := range entries {
			c.members[i] = member{e.Rule, e.Make(&c.state)}
		}
		return c
	}
	for _, e := range entries {
		e.Rule.Group = name
		e.Rule.NewChecker = newGroup
	}
}

// member is one rule's checker in a group.
type member struct {
	rule *lint.Rule
	c    lint.Checker
}

// checker is a group's checker: its members over one shared state.
type checker[S any] struct {
	state   S
	forget  func(*S)
	members []member
}

// Observe shows p's message to every member, under its own rule, then forgets
// it. Each member gets p itself with its rule set, which reports what
// p.As(rule) would (the same diagnostics and claims, in the same place) without
// looking the As pass up once per member and message; p's rule is put back
// afterwards, also when a member panics (the driver then names the group's
// rule, as before).
func (g *checker[S]) Observe(p *lint.Pass) {
	rule := p.Rule
	defer func() { p.Rule = rule }()
	for _, m := range g.members {
		p.Rule = m.rule
		m.c.Observe(p)
	}
	g.forget(&g.state)
}

// Finish finishes every member, under its own rule.
func (g *checker[S]) Finish(p *lint.Pass) {
	rule := p.Rule
	defer func() { p.Rule = rule }() // as in Observe
	for _, m := range g.members {
		p.Rule = m.rule
		m.c.Finish(p)
	}
}

// MaxPooledEntries is the largest queue (and so map) a released sequence-state
// table gives back to its pool: a bigger one is left to the collector. A pooled
// map keeps its capacity, and every later session that takes it holds that
// capacity while it lives; with up to 1,024 sessions open, tables grown by a few
// long sessions would otherwise make the live heap grow with the transcript
// (peak RSS 125 MiB at 1.5M messages with GOMEMLIMIT=off, against 52 MiB before
// pooling). The sequence rules of orchmsg, aos and aof share it.
const MaxPooledEntries = 64

// MaxSpares is the most grown tables a Spares keeps: one, for the one long
// session the driver restarts. With 4, peak RSS on 1.5M messages with
// GOMEMLIMIT=off rose from 47.9 to 61.7 MiB (over issue 11's 60), and CPU with
// the default soft limit did not measurably improve (single /usr/bin/time runs
// on /tmp/pf/t1500k: 8.43 s with 4, 8.29 s with 1, 8.09 s without spares); with
// 1, 54.1 MiB.
const MaxSpares = 1

// Spares keeps a few sequence-state tables grown past MaxPooledEntries, emptied,
// for the next table that grows as big: a session that outlives MaxPooledEntries
// entries (the bare lines of a transcript, one session that the driver finishes
// and starts again as newer sessions push it out) would otherwise grow its
// tables from nothing each time (orchmsg's windows: 1,000 to 1,500 entries, 85 B
// a line of the benchmark transcript). The collector does not empty it (a
// sync.Pool it empties every cycle), and it holds at most MaxSpares tables, so
// what it keeps alive is bounded. Safe for concurrent use (the workers share
// it). Its zero value is empty and ready to use.
type Spares[T any] struct {
	mu sync.Mutex
	s  []T
}

// Get takes a kept table, if there is one.
func (s *Spares[T]) Get() (t T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.s); n > 0 {
		t, s.s[n-1] = s.s[n-1], t
		s.s = s.s[:n-1]
		return t, true
	}
	return t, false
}

// Put keeps t, which must be empty, unless MaxSpares are kept; it reports
// whether it did.
func (s *Spares[T]) Put(t T) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.s) >= MaxSpares {
		return false
	}
	s.s = append(s.s, t)
	return true
}
