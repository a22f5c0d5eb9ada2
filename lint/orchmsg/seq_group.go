package orchmsg

import (
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
)

// The orchmsg sequence rules are one rule group (seqgroup): the driver makes one
// group checker per stream, whose rule checkers share what they read of each
// message (msgFacts) and report under their own rules.

// seqGroup names the group of every orchmsg sequence rule.
const seqGroup = "orchmsg-seq"

// msgFacts is what the group's checkers read of the message being observed, each
// read once (on the first checker's asking) and shared: its id and the owned
// copy the checkers keep (ownID), its type, correlationId, time (when) and its
// mark at /id, which up to four checkers keep. The group forgets them after
// each message.
type msgFacts struct {
	m    *lint.Message
	have uint8 // which of the facts below are read (the fact* bits)

	id, own string // idOf(m), and its owned copy
	typ     string // msgType(m), a string of the line
	fam     string // family(typ), the spec's string
	cid     string // m's correlationId, a string of the line
	own2    string // ownType(typ)
	at      time.Time
	idMark  mark // markAt(m, "/id", ownType, own)
}

const (
	factID = 1 << iota
	factOwn
	factType
	factOwnType
	factWhen
	factIDMark
	factCID
	factFamily
)

// of is as it is after reading m: its facts are m's.
func (s *msgFacts) of(m *lint.Message) *msgFacts {
	if s.m != m {
		*s = msgFacts{m: m}
	}
	return s
}

// fact returns the fact of m at *field, read by read the first time it is asked
// for (bit says it was).
func fact[T any](s *msgFacts, m *lint.Message, bit uint8, field *T, read func(*lint.Message) T) T {
	if s.of(m).have&bit == 0 {
		*field, s.have = read(m), s.have|bit
	}
	return *field
}

// idOf returns m's id, a string of its line ("" if it has none).
func (s *msgFacts) idOf(m *lint.Message) string { return fact(s, m, factID, &s.id, idOf) }

// ownID returns m's id, owned (ownID): the copy the checkers keep.
func (s *msgFacts) ownID(m *lint.Message) string {
	return fact(s, m, factOwn, &s.own, func(m *lint.Message) string { return ownID(s.idOf(m)) })
}

// msgType returns m's type, a string of its line.
func (s *msgFacts) msgType(m *lint.Message) string { return fact(s, m, factType, &s.typ, msgType) }

// family returns the family of m's type (family).
func (s *msgFacts) family(m *lint.Message) string {
	return fact(s, m, factFamily, &s.fam, func(m *lint.Message) string { return family(s.msgType(m)) })
}

// correlationID returns m's correlationId, a string of its line ("" if none).
func (s *msgFacts) correlationID(m *lint.Message) string {
	return fact(s, m, factCID, &s.cid, func(m *lint.Message) string { return m.Root.Get("correlationId").String() })
}

// ownType returns m's type as a mark keeps it (ownType).
func (s *msgFacts) ownType(m *lint.Message) string {
	return fact(s, m, factOwnType, &s.own2, func(m *lint.Message) string { return ownType(s.msgType(m)) })
}

// when returns when m was sent (the function when).
func (s *msgFacts) when(m *lint.Message) time.Time { return fact(s, m, factWhen, &s.at, when) }

// mark marks m at pointer, with its type and owned id (markAt).
func (s *msgFacts) mark(m *lint.Message, pointer string) mark {
	if pointer != "/id" {
		return markAt(m, pointer, s.ownType(m), s.ownID(m))
	}
	return fact(s, m, factIDMark, &s.idMark, func(m *lint.Message) mark { return markAt(m, pointer, s.ownType(m), s.ownID(m)) })
}

// groupRules lists the group's rules, in ID order, with the checker of each.
var groupRules = []seqgroup.Entry[msgFacts]{
	{Rule: SeqCorrelation, Make: func(f *msgFacts) lint.Checker {
		return &corrChecker{f: f, reqs: newWindow(MaxTracked, &setPool), others: newWindow(MaxTracked, &markPool)}
	}},
	{Rule: SeqDuplicateResponse, Make: func(f *msgFacts) lint.Checker {
		return &dupRespChecker{f: f, reqs: newWindow(MaxTracked, &markPool), answered: newWindow(MaxTracked, &markPool)}
	}},
	{Rule: SeqUniqueID, Make: func(f *msgFacts) lint.Checker { return &uniqueChecker{f: f, seen: newWindow(MaxTracked, &markPool)} }},
	{Rule: SeqTimeout, Make: func(f *msgFacts) lint.Checker {
		return &timeoutChecker{f: f, open: newWindow(MaxTracked, &requestPool), reqIDs: newWindow(MaxTracked, &setPool)}
	}},
	{Rule: SeqRate, Make: func(f *msgFacts) lint.Checker { return &rateChecker{f: f, agents: newWindow(256, &rateStates)} }},
	{Rule: SeqDirection, Make: func(*msgFacts) lint.Checker { return &directionChecker{} }},
	{Rule: SeqShutdown, Make: func(f *msgFacts) lint.Checker { return &shutdownChecker{f: f} }},
	{Rule: SeqAnswerFits, Make: func(f *msgFacts) lint.Checker { return &fitChecker{f: f, open: newWindow(MaxTracked, &fitPool)} }},
	{Rule: SeqCancelled, Make: func(f *msgFacts) lint.Checker {
		return &cancelChecker{f: f, cancelled: newWindow(MaxTracked, &cancelsPool)}
	}},
	{Rule: SeqAgentID, Make: func(*msgFacts) lint.Checker { return &agentIDChecker{} }},
}

func init() {
	seqgroup.Register(seqGroup, groupRules, func(f *msgFacts) { *f = msgFacts{} })
}
