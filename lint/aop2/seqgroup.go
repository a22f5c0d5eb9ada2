package aop2

import (
	"sync"

	"github.com/aopkit/aopkit/lint"
)

// The AOP2 sequence rules are one rule group: the driver makes one groupChecker per
// stream, which reads each message once (viewOf: types, ids, clocks) and hands the
// view to each rule's own checker, reporting under that rule.

// viewChecker is a rule's checker inside the group.
type viewChecker interface {
	// observes says which messages observe is to see: the group does not call
	// it for the others (most of a session's messages are EVENTs, which half
	// of the checkers pass over).
	observes() msgTypes
	observe(p *lint.Pass, v *view)
	Finish(p *lint.Pass)
	// reset makes the checker new again, keeping its memory for the next session.
	reset()
}

// taskReplier is a rule's checker that pairs each TASK with its RESPONSE: the
// group shows it, through taskReplies, the TASKs that name their task (a
// task_id) and the RESPONSEs.
type taskReplier interface {
	task(p *lint.Pass, v *view)
	response(p *lint.Pass, v *view)
	Finish(p *lint.Pass)
	reset()
}

// taskReplies is the viewChecker of a taskReplier.
type taskReplies struct{ c taskReplier }

func (t taskReplies) observes() msgTypes { return typesTaskResponse }

func (t taskReplies) observe(p *lint.Pass, v *view) {
	switch v.typ {
	case "TASK":
		if v.taskID != "" {
			t.c.task(p, v)
		}
	case "RESPONSE":
		t.c.response(p, v)
	}
}

func (t taskReplies) Finish(p *lint.Pass) { t.c.Finish(p) }

func (t taskReplies) reset() { t.c.reset() }

// seqGroup names the group of every AOP2 sequence rule.
const seqGroup = "aop2-seq"

// groupRules lists the group's rules with the checker of each (in a group's
// checkerSet: one allocation for them all), in rule ID order; a rule without one
// is reported by the checker of an earlier rule, which keeps the one table both
// would keep.
var groupRules = []struct {
	rule *lint.Rule
	of   func(*checkerSet) viewChecker
}{
	{SeqCorrelation, func(m *checkerSet) viewChecker { return taskReplies{&m.corr} }},
	{SeqFinalSignal, func(m *checkerSet) viewChecker { return taskReplies{&m.rails} }},
	{SeqMinimalReport, nil}, // railsChecker's
	{SeqNoResponse, func(m *checkerSet) viewChecker { m.pending.session = &m.session; return &m.pending }},
	{SeqHeartbeatFailure, func(m *checkerSet) viewChecker { m.beat.session = &m.session; return &m.beat }},
	{SeqHeartbeatLate, nil}, // beatChecker's
	{SeqProgressRate, func(m *checkerSet) viewChecker { return &m.rate }},
	{SeqAfterResponse, func(m *checkerSet) viewChecker { return &m.reply }},
	{SeqDuplicateResponse, nil}, // replyChecker's
	{SeqTimeout, func(m *checkerSet) viewChecker { m.timeout.session = &m.session; return &m.timeout }},
	{SeqDelegationDepth, func(m *checkerSet) viewChecker { return &m.depth }},
	{SeqCheckpoints, func(m *checkerSet) viewChecker { return taskReplies{&m.checkpoint} }},
	{SeqBudget, func(m *checkerSet) viewChecker { return &m.budget }},
	{SeqProgressBackwards, func(m *checkerSet) viewChecker { return &m.backwards }},
	{SeqAgentModel, func(m *checkerSet) viewChecker { return taskReplies{&m.agent} }},
	{SeqDelegationAllowed, nil}, // depthChecker's
}

// checkerSet holds the checkers of a group, made with it: one allocation, not one
// each, and together in memory for Observe and Finish.
type checkerSet struct {
	session    session // the group's counts, which some checkers read
	corr       corrChecker
	rails      railsChecker
	pending    pendingChecker
	beat       beatChecker
	rate       rateChecker
	reply      replyChecker
	timeout    timeoutChecker
	depth      depthChecker
	checkpoint checkpointChecker
	budget     budgetChecker
	backwards  backwardsChecker
	agent      agentChecker
}

// session is what the group counts over a session for its checkers: kept once,
// not by each checker that needs it from every message (a checker that reads
// it at Finish need not observe the messages it does not otherwise look at).
type session struct {
	now     stamp // view.now: the latest of each clock over the session
	nonTask int   // the messages other than TASKs so far
}

// memberCount is the number of groupRules with a checker (the fields of
// checkerSet; TestGroupMembers holds it to both).
const memberCount = 12

func init() {
	for _, g := range groupRules {
		g.rule.Group = seqGroup
		g.rule.NewChecker = newGroupChecker
	}
}

type groupMember struct {
	rule  *lint.Rule
	c     viewChecker
	types msgTypes // c.observes()
}

// groupChecker runs the checkers of every AOP2 sequence rule over one view.
type groupChecker struct {
	members  []groupMember            // over checkers, in groupRules order
	member   [memberCount]groupMember // the array of members
	checkers checkerSet
	names    names
	view     view // of the message being observed
}

// groups holds group checkers whose session finished, for the next session: a
// transcript of many short sessions then makes its tables once.
var groups sync.Pool

func newGroupChecker() lint.Checker {
	if g, ok := groups.Get().(*groupChecker); ok {
		return g
	}
	g := &groupChecker{}
	g.members = g.member[:0]
	for _, r := range groupRules {
		if r.of != nil {
			c := r.of(&g.checkers)
			g.members = append(g.members, groupMember{r.rule, c, c.observes()})
		}
	}
	return g
}

func (g *groupChecker) Observe(p *lint.Pass) {
	// The view lives in the checker, handed to each member by pointer: not
	// copied sixteen times, nor moved to the heap per message.
	viewOf(&g.view, p.Msg, &g.names)
	s := &g.checkers.session
	s.now.latest(g.view.when)
	g.view.now = s.now
	if g.view.typ != "TASK" {
		s.nonTask++
	}
	// Each member gets p itself with its rule set, which reports what
	// p.As(rule) would without looking the As pass up; p's rule is put back
	// afterwards, also when a member panics (the driver then names the group's
	// rule, as before).
	rule := p.Rule
	defer func() { p.Rule = rule }()
	t := g.view.types()
	for i := range g.members {
		m := &g.members[i]
		if m.types&t == 0 {
			continue
		}
		p.Rule = m.rule
		m.c.observe(p, &g.view)
	}
	g.view.root, g.view.sessionN, g.view.percent = nil, nil, nil // the tree is the message's: not kept past it
}

// Finish reports what the session left open, then hands the checker back to the
// pool: Finish is the last call a checker gets (lint.Checker). A checker whose
// Finish panicked is not reused.
func (g *groupChecker) Finish(p *lint.Pass) {
	rule := p.Rule
	defer func() { p.Rule = rule }() // as in Observe
	for _, m := range g.members {
		p.Rule = m.rule
		m.c.Finish(p)
	}
	for _, m := range g.members {
		m.c.reset()
	}
	g.view, g.checkers.session = view{}, session{}
	if g.names.Len() > maxNames/8 {
		g.names.DropMap()
	}
	groups.Put(g)
}
