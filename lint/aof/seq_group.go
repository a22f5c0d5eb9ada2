package aof

import "github.com/aopkit/aopkit/lint"

// The AOF sequence rules are one rule group: the driver makes one groupChecker per
// stream, whose rule checkers share one viewOf per message (the task, the sender
// and the time, parsed once) and report under their own rules.

// seqGroup names the group of every AOF sequence rule.
const seqGroup = "aof-seq"

// viewMemo keeps the view of the message being observed, for every checker of
// the group. A nil memo (a checker outside the group) computes the view each time.
type viewMemo struct {
	m  *lint.Message
	v  view
	ok bool
}

func (vm *viewMemo) of(m *lint.Message) (view, bool) {
	if vm == nil {
		return viewOf(m)
	}
	if vm.m != m {
		vm.m = m
		vm.v, vm.ok = viewOf(m)
	}
	return vm.v, vm.ok
}

// groupRules lists the group's rules with the checker of each.
var groupRules = []struct {
	rule *lint.Rule
	make func(*viewMemo) lint.Checker
}{
	{SeqDelegation, func(vm *viewMemo) lint.Checker { return &delegationChecker{views: vm} }},
	{SeqAnswer, func(vm *viewMemo) lint.Checker { return &answerChecker{views: vm} }},
	{SeqTransition, func(vm *viewMemo) lint.Checker { return &transitionChecker{views: vm} }},
	{SeqCompletion, func(vm *viewMemo) lint.Checker { return &completionChecker{views: vm} }},
	{SeqArtifacts, func(vm *viewMemo) lint.Checker { return &artifactChecker{views: vm} }},
	{SeqNoCompletion, func(vm *viewMemo) lint.Checker { return &noCompletionChecker{views: vm} }},
	{SeqStale, func(vm *viewMemo) lint.Checker { return &staleChecker{views: vm} }},
}

func init() {
	for _, g := range groupRules {
		g.rule.Group = seqGroup
		g.rule.NewChecker = newGroupChecker
	}
}

type groupMember struct {
	rule *lint.Rule
	c    lint.Checker
}

// groupChecker runs the checkers of every AOF sequence rule, in the order of
// groupRules.
type groupChecker struct {
	views   viewMemo
	members []groupMember
}

func newGroupChecker() lint.Checker {
	g := &groupChecker{members: make([]groupMember, len(groupRules))}
	for i, r := range groupRules {
		g.members[i] = groupMember{r.rule, r.make(&g.views)}
	}
	return g
}

func (g *groupChecker) Observe(p *lint.Pass) {
	for _, m := range g.members {
		m.c.Observe(p.As(m.rule))
	}
	g.views = viewMemo{} // keep no message past its turn
}

func (g *groupChecker) Finish(p *lint.Pass) {
	for _, m := range g.members {
		m.c.Finish(p.As(m.rule))
	}
}
