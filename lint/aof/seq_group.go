package aof

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// The AOF sequence rules are one rule group: the driver makes one groupChecker per
// stream, whose rule checkers share one viewOf per message (the task, the sender
// and the time, parsed once) and report under their own rules.

// seqGroup names the group of every AOF sequence rule.
const seqGroup = "aof-seq"

// viewMemo keeps the view of the message being observed, for every checker of
// the group. A nil memo (a checker outside the group) computes the view each time.
//
// The view's task and agent are owned (own): the checkers keep them past the
// message, as table keys and in their states.
type viewMemo struct {
	m  *lint.Message
	v  view
	ok bool
	// owned interns the strings of messages the group keeps (task ids, agents,
	// outcomes, statuses): a session names the same few again and again, so
	// each is copied once, not once per message.
	owned map[string]string
}

func (vm *viewMemo) of(m *lint.Message) (view, bool) {
	if vm == nil {
		v, ok := viewOf(m)
		v.task, v.from = strings.Clone(v.task), strings.Clone(v.from)
		return v, ok
	}
	if vm.m != m {
		vm.m = m
		vm.v, vm.ok = viewOf(m)
		vm.v.task, vm.v.from = vm.own(vm.v.task), vm.own(vm.v.from)
	}
	return vm.v, vm.ok
}

// own returns s as the group keeps it: a copy that does not pin (or, once the
// driver reuses its line buffer, change with) the message's line, interned.
func (vm *viewMemo) own(s string) string {
	if s == "" {
		return ""
	}
	if vm == nil {
		return strings.Clone(s)
	}
	if o, ok := vm.owned[s]; ok {
		return o
	}
	if vm.owned == nil {
		vm.owned = map[string]string{}
	} else if len(vm.owned) >= 4*MaxTasks {
		clear(vm.owned) // the copies handed out stay valid; only the sharing restarts
	}
	o := strings.Clone(s)
	vm.owned[o] = o
	return o
}

// forget drops the message observed, keeping the interned strings.
func (vm *viewMemo) forget() { vm.m, vm.v, vm.ok = nil, view{}, false }

// groupRules lists the group's rules with the checker of each.
var groupRules = []struct {
	rule *lint.Rule
	make func(*viewMemo) lint.Checker
}{
	{SeqDelegation, func(vm *viewMemo) lint.Checker {
		return &delegationChecker{views: vm, children: table[lint.Related]{pool: &witnessTables}}
	}},
	{SeqAnswer, func(vm *viewMemo) lint.Checker {
		return &answerChecker{views: vm, requests: table[*handoffState]{pool: &handoffTables}}
	}},
	{SeqTransition, func(vm *viewMemo) lint.Checker {
		return &transitionChecker{views: vm, tasks: table[*taskStatus]{pool: &statusTables}}
	}},
	{SeqCompletion, func(vm *viewMemo) lint.Checker {
		return &completionChecker{views: vm, done: table[completionState]{pool: &completionTables}}
	}},
	{SeqArtifacts, func(vm *viewMemo) lint.Checker {
		return &artifactChecker{views: vm, runs: table[*runState]{pool: &runTables}}
	}},
	{SeqNoCompletion, func(vm *viewMemo) lint.Checker {
		return &noCompletionChecker{views: vm, active: table[lint.Related]{pool: &witnessTables}}
	}},
	{SeqStale, func(vm *viewMemo) lint.Checker {
		return &staleChecker{views: vm, beats: table[*heartbeat]{pool: &heartbeatTables}}
	}},
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
	g.views.forget() // keep no message past its turn
}

func (g *groupChecker) Finish(p *lint.Pass) {
	for _, m := range g.members {
		m.c.Finish(p.As(m.rule))
	}
}
