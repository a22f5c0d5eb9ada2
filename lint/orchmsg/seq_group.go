package orchmsg

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
)

// The orchmsg sequence rules are one rule group (seqgroup): the driver makes one
// group checker per stream, whose rule checkers share the owned copy of each
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
var groupRules = []seqgroup.Entry[msgID]{
	{Rule: SeqCorrelation, Make: func(ids *msgID) lint.Checker {
		return &corrChecker{ids: ids, reqs: newWindow(MaxTracked, &setPool), others: newWindow(MaxTracked, &markPool)}
	}},
	{Rule: SeqDuplicateResponse, Make: func(ids *msgID) lint.Checker {
		return &dupRespChecker{ids: ids, reqs: newWindow(MaxTracked, &markPool), answered: newWindow(MaxTracked, &markPool)}
	}},
	{Rule: SeqUniqueID, Make: func(ids *msgID) lint.Checker { return &uniqueChecker{ids: ids, seen: newWindow(MaxTracked, &markPool)} }},
	{Rule: SeqTimeout, Make: func(ids *msgID) lint.Checker {
		return &timeoutChecker{ids: ids, open: newWindow(MaxTracked, &requestPool), reqIDs: newWindow(MaxTracked, &setPool)}
	}},
	{Rule: SeqRate, Make: func(ids *msgID) lint.Checker { return &rateChecker{ids: ids, agents: newWindow(256, &rateStates)} }},
	{Rule: SeqDirection, Make: func(*msgID) lint.Checker { return &directionChecker{} }},
	{Rule: SeqShutdown, Make: func(*msgID) lint.Checker { return &shutdownChecker{} }},
	{Rule: SeqAnswerFits, Make: func(ids *msgID) lint.Checker { return &fitChecker{ids: ids, open: newWindow(MaxTracked, &fitPool)} }},
	{Rule: SeqCancelled, Make: func(*msgID) lint.Checker { return &cancelChecker{cancelled: newWindow(MaxTracked, &cancelsPool)} }},
	{Rule: SeqAgentID, Make: func(*msgID) lint.Checker { return &agentIDChecker{} }},
}

func init() {
	seqgroup.Register(seqGroup, groupRules, func(ids *msgID) { *ids = msgID{} })
}
