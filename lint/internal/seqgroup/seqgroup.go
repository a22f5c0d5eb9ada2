// Package seqgroup runs a protocol's sequence rules as one rule group
// (lint.Rule.Group): the driver makes one checker per stream, which runs each
// rule's own checker in turn, reporting under that rule (Pass.As), and lets them
// share what they read of each message (a state S of the protocol's: a parsed
// view, owned copies of the strings they keep).
package seqgroup

import "github.com/aopkit/aopkit/lint"

// Entry is one rule of a group and how to make its checker over the shared S.
type Entry[S any] struct {
	Rule *lint.Rule
	Make func(*S) lint.Checker
	// Sees, when set, says which messages the checker is shown (the others
	// it would pass over anyway): the one test of what a protocol's checkers
	// all look at, instead of one at the top of each Observe.
	Sees func(*S, *lint.Message) bool
}

// Register makes entries one group named name: every rule's NewChecker makes
// the group's checker (the driver calls the first rule's, by ID), which runs the
// entries' checkers in order over one shared S and calls forget on it after each
// message, so that S keeps no message past its turn (the driver may reuse it).
func Register[S any](name string, entries []Entry[S], forget func(*S)) {
	newGroup := func() lint.Checker {
		c := &checker[S]{forget: forget}
		c.members = make([]member[S], len(entries))
		for i, e := range entries {
			c.members[i] = member[S]{e.Rule, e.Make(&c.state), e.Sees}
		}
		return c
	}
	for _, e := range entries {
		e.Rule.Group = name
		e.Rule.NewChecker = newGroup
	}
}

// member is one rule's checker in a group.
type member[S any] struct {
	rule *lint.Rule
	c    lint.Checker
	sees func(*S, *lint.Message) bool // Entry.Sees
}

// checker is a group's checker: its members over one shared state.
type checker[S any] struct {
	state   S
	forget  func(*S)
	members []member[S]
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
		if m.sees != nil && !m.sees(&g.state, p.Msg) {
			continue
		}
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
