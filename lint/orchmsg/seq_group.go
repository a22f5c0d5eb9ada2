package orchmsg

import "github.com/aopkit/aopkit/lint"

// The orchmsg sequence rules are one rule group: the driver makes one
// groupChecker per stream, whose rule checkers share the owned copy of each
// message's id (msgID) and report under their own rules.

// seqGroup names the group of every orchmsg sequence rule.
const seqGroup = "orchmsg-seq"

// msgID is the id of the message being observed, owned (ownID): the checkers
// that keep it (as a key, in a mark) share one copy instead of one each. A nil
// msgID (a checker outside the group) copies it each time.
type msgID struct {
	m  *lint.Message
	id string
}

func (s *msgID) of(m *lint.Message) string {
	if s == nil {
		return ownID(idOf(m))
	}
	if s.m != m {
		s.m, s.id = m, ownID(idOf(m))
	}
	return s.id
}

// groupRules lists the group's rules, in ID order, with the checker of each.
var groupRules = []struct {
	rule *lint.Rule
	make func(*msgID) lint.Checker
}{
	{SeqCorrelation, func(ids *msgID) lint.Checker {
		return &corrChecker{ids: ids, reqs: newWindow(MaxTracked, &setPool), others: newWindow(MaxTracked, &markPool)}
	}},
	{SeqDuplicateResponse, func(ids *msgID) lint.Checker {
		return &dupRespChecker{ids: ids, reqs: newWindow(MaxTracked, &markPool), answered: newWindow(MaxTracked, &markPool)}
	}},
	{SeqUniqueID, func(ids *msgID) lint.Checker { return &uniqueChecker{ids: ids, seen: newWindow(MaxTracked, &markPool)} }},
	{SeqTimeout, func(ids *msgID) lint.Checker {
		return &timeoutChecker{ids: ids, open: newWindow(MaxTracked, &requestPool), reqIDs: newWindow(MaxTracked, &setPool)}
	}},
	{SeqRate, func(ids *msgID) lint.Checker { return &rateChecker{ids: ids, agents: newWindow(256, &rateStates)} }},
	{SeqDirection, func(*msgID) lint.Checker { return &directionChecker{} }},
	{SeqShutdown, func(*msgID) lint.Checker { return &shutdownChecker{} }},
	{SeqAnswerFits, func(ids *msgID) lint.Checker { return &fitChecker{ids: ids, open: newWindow(MaxTracked, &fitPool)} }},
	{SeqCancelled, func(*msgID) lint.Checker { return &cancelChecker{cancelled: newWindow(MaxTracked, &cancelsPool)} }},
	{SeqAgentID, func(*msgID) lint.Checker { return &agentIDChecker{} }},
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

// groupChecker runs the checkers of every orchmsg sequence rule, in the order
// of groupRules (the order the driver ran them in as separate checkers).
type groupChecker struct {
	ids     msgID
	members []groupMember
}

func newGroupChecker() lint.Checker {
	g := &groupChecker{members: make([]groupMember, len(groupRules))}
	for i, r := range groupRules {
		g.members[i] = groupMember{r.rule, r.make(&g.ids)}
	}
	return g
}

func (g *groupChecker) Observe(p *lint.Pass) {
	for _, m := range g.members {
		m.c.Observe(p.As(m.rule))
	}
	g.ids = msgID{} // keep no message past its turn (the driver may reuse it)
}

func (g *groupChecker) Finish(p *lint.Pass) {
	for _, m := range g.members {
		m.c.Finish(p.As(m.rule))
	}
}
