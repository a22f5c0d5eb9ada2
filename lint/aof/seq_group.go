package aof

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
)

// The AOF sequence rules are one rule group (seqgroup): the driver makes one
// group checker per stream, whose rule checkers share one viewOf per message
// (the task, the sender and the time, parsed once) and report under their own
// rules.

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
	// owned makes the copies of the strings of messages the group keeps (task
	// ids, agents, outcomes, statuses): a session names the same few again and
	// again, found among the last handed out instead of copied once per
	// message (seqgroup.Names).
	owned seqgroup.Names
	// lastTask and lastFrom are the last view's task and from, owned: the
	// messages of a task follow one another (Names.OwnAs).
	lastTask, lastFrom string
}

// of returns the view of m, shared by the group's checkers (not to be
// changed), valid until the group forgets the message.
func (vm *viewMemo) of(m *lint.Message) (*view, bool) {
	if vm == nil {
		v, ok := viewOf(m)
		v.task, v.from = strings.Clone(v.task), strings.Clone(v.from)
		return &v, ok
	}
	if vm.m != m {
		vm.m = m
		vm.v, vm.ok = viewOf(m)
		vm.v.task = vm.owned.OwnAs(&vm.lastTask, vm.v.task, maxOwned)
		vm.v.from = vm.owned.OwnAs(&vm.lastFrom, vm.v.from, maxOwned)
	}
	return &vm.v, vm.ok
}

// observe calls f with p's message's view (of), when it has one: the start of
// the Observe of a checker that looks at nothing else.
func (vm *viewMemo) observe(p *lint.Pass, f func(*lint.Pass, *view)) {
	if v, ok := vm.of(p.Msg); ok {
		f(p, v)
	}
}

// own returns s as the group keeps it: a copy (Names), so that the state pins
// a few bytes, not the message's whole line (lint.Message: a kept string of the
// tree keeps its line alive).
func (vm *viewMemo) own(s string) string {
	if s == "" {
		return ""
	}
	if vm == nil {
		return strings.Clone(s)
	}
	return vm.owned.Own(s, maxOwned)
}

// maxOwned bounds the (long) strings the group interns (Names).
const maxOwned = 4 * MaxTasks

// forget drops the message observed, keeping the strings handed out.
func (vm *viewMemo) forget() { vm.m, vm.v, vm.ok = nil, view{}, false }

// groupRules lists the group's rules with the checker of each.
var groupRules = []seqgroup.Entry[viewMemo]{
	{Rule: SeqDelegation, Make: func(vm *viewMemo) lint.Checker {
		return &delegationChecker{views: vm, children: seqgroup.NewTable(MaxTasks, &witnessTables)}
	}},
	{Rule: SeqAnswer, Make: func(vm *viewMemo) lint.Checker {
		return &answerChecker{views: vm, requests: seqgroup.NewTable(MaxTasks, &handoffTables)}
	}},
	{Rule: SeqTransition, Make: func(vm *viewMemo) lint.Checker {
		return &transitionChecker{views: vm, tasks: seqgroup.NewTable(MaxTasks, &statusTables)}
	}},
	{Rule: SeqCompletion, Make: func(vm *viewMemo) lint.Checker {
		return &completionChecker{views: vm, done: seqgroup.NewTable(MaxTasks, &completionTables)}
	}},
	{Rule: SeqArtifacts, Make: func(vm *viewMemo) lint.Checker {
		return &artifactChecker{views: vm, runs: seqgroup.NewTable(MaxTasks, &runTables)}
	}},
	{Rule: SeqNoCompletion, Make: func(vm *viewMemo) lint.Checker {
		return &noCompletionChecker{views: vm, active: seqgroup.NewTable(MaxTasks, &witnessTables)}
	}},
	{Rule: SeqStale, Make: func(vm *viewMemo) lint.Checker {
		return &staleChecker{views: vm, beats: seqgroup.NewTable(MaxTasks, &heartbeatTables)}
	}},
}

func init() { seqgroup.Register(seqGroup, groupRules, (*viewMemo).forget) }
