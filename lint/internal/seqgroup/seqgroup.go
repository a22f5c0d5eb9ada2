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
}

// Register makes entries one group named name, made by newGroup: every rule's
// NewChecker is newGroup (the driver calls the first rule's, by ID).
func Register[S any](name string, entries []Entry[S], newGroup func() lint.Checker) {
	for _, e := range entries {
		e.Rule.Group = name
		e.Rule.NewChecker = newGroup
	}
}

// Member is one rule's checker in a group.
type Member struct {
	rule *lint.Rule
	c    lint.Checker
}

// Group runs its members' checkers in order.
type Group []Member

// New makes the members of entries over s.
func New[S any](s *S, entries []Entry[S]) Group {
	g := make(Group, len(entries))
	for i, e := range entries {
		g[i] = Member{e.Rule, e.Make(s)}
	}
	return g
}

// Observe shows p's message to every member, under its own rule.
func (g Group) Observe(p *lint.Pass) {
	for _, m := range g {
		m.c.Observe(p.As(m.rule))
	}
}

// Finish finishes every member, under its own rule.
func (g Group) Finish(p *lint.Pass) {
	for _, m := range g {
		m.c.Finish(p.As(m.rule))
	}
}
