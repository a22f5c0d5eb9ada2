package orchmsg

import (
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// The orchmsg sequence rules are one rule group (seqgroup): the driver makes one
// group checker per stream, whose rule checkers share what they read of each
// message (msgFacts) and report under their own rules.

// seqGroup names the group of every orchmsg sequence rule.
const seqGroup = "orchmsg-seq"

// msgFacts is what the group's checkers read of the message being observed,
// read once and shared: the root's members they look at (id, type,
// correlationId, timestamp), found in one pass over its members when the first
// checker asks, and, each made on the first checker's asking, the owned copy of
// the id the checkers keep (ownID), the type's family and owned string, the time
// (when) and the mark at /id, which up to four checkers keep. The group forgets
// them after each message.
type msgFacts struct {
	m    *lint.Message
	have uint8 // which of the facts below are read (the fact* bits)
	msg  bool  // isMsg(m), which every checker asks first

	// The root's members (nil: absent), as m.Root.Get finds each: the last
	// member of a repeated key.
	idN, typN, cidN, tsN *jsonread.Node

	own    string // ownID(idOf(m))
	fam    string // family(typ), the spec's string
	own2   string // ownType(typ)
	at     time.Time
	idMark mark // markAt(m, "/id", ownType, own)
}

const (
	factOwn = 1 << iota
	factOwnType
	factWhen
	factIDMark
	factFamily
)

// of is as it is after reading m: its facts are m's.
func (s *msgFacts) of(m *lint.Message) *msgFacts {
	if s.m != m {
		s.load(m)
	}
	return s
}

// load makes the facts m's. The group forgets the facts after each message (a
// zero msgFacts), so the first call of a message finds them empty and clears
// nothing: the struct is big, and clearing it again cost more than reading the
// members.
func (s *msgFacts) load(m *lint.Message) {
	if s.m != nil {
		*s = msgFacts{} // another message's, not forgotten (not through the group)
	}
	if m != nil {
		s.m, s.msg = m, isMsg(m)
		s.read(m.Root)
	}
}

// isMsg reports isMsg(m), computed once per message.
func (s *msgFacts) isMsg(m *lint.Message) bool { return s.of(m).msg }

// read finds the members of root the facts are made of in one pass
// (jsonread.ReadMembers), the last member of a repeated key as root.Get finds it
// (FuzzFactsRead holds it to Get).
func (s *msgFacts) read(root *jsonread.Node) { jsonread.ReadMembers(root, s, (*msgFacts).slot) }

// slot is where the facts hold the member key (nil: none).
func (s *msgFacts) slot(key string) **jsonread.Node {
	switch key {
	case "id":
		return &s.idN
	case "type":
		return &s.typN
	case "correlationId":
		return &s.cidN
	case "timestamp":
		return &s.tsN
	}
	return nil
}

// idOf returns m's id, a string of its line ("" if it has none): idOf(m).
func (s *msgFacts) idOf(m *lint.Message) string { return s.of(m).idN.String() }

// ownID returns m's id, owned (ownID): the copy the checkers keep.
func (s *msgFacts) ownID(m *lint.Message) string {
	if s.of(m).have&factOwn == 0 {
		s.own, s.have = ownID(s.idN.String()), s.have|factOwn
	}
	return s.own
}

// msgType returns m's type, a string of its line: msgType(m).
func (s *msgFacts) msgType(m *lint.Message) string { return s.of(m).typN.String() }

// family returns the family of m's type (family).
func (s *msgFacts) family(m *lint.Message) string {
	if s.of(m).have&factFamily == 0 {
		s.fam, s.have = family(s.typN.String()), s.have|factFamily
	}
	return s.fam
}

// sender is who sent m: m.From when the transcript says, else inferred from the
// message type (requests and events: agent; responses and notifications:
// orchestrator).
func (s *msgFacts) sender(m *lint.Message) string {
	if m.From == "agent" || m.From == "orchestrator" || m.From == "harness" {
		return m.From
	}
	return s.typeSender(m)
}

// typeSender is the side that sends messages of m's type ("" if unknown).
func (s *msgFacts) typeSender(m *lint.Message) string { return typeSender(m, s.msgType(m)) }

// correlationID returns m's correlationId, a string of its line ("" if none).
func (s *msgFacts) correlationID(m *lint.Message) string { return s.of(m).cidN.String() }

// ownType returns m's type as a mark keeps it (ownType).
func (s *msgFacts) ownType(m *lint.Message) string {
	if s.of(m).have&factOwnType == 0 {
		s.own2, s.have = ownType(s.typN.String()), s.have|factOwnType
	}
	return s.own2
}

// when returns when m was sent (the function when, of the timestamp read).
func (s *msgFacts) when(m *lint.Message) time.Time {
	if s.of(m).have&factWhen == 0 {
		s.at, s.have = when(m, s.tsN), s.have|factWhen
	}
	return s.at
}

// mark marks m at pointer, with its type and owned id (markAt); at /id,
// /type and /correlationId, at the member read (where PointerPosition's walk
// ends) without walking the pointer again.
func (s *msgFacts) mark(m *lint.Message, pointer string) mark {
	s.of(m)
	var n *jsonread.Node
	switch pointer {
	case "/id":
		if s.have&factIDMark == 0 {
			s.idMark, s.have = s.markAt(m, s.idN, pointer), s.have|factIDMark
		}
		return s.idMark
	case "/type":
		n = s.typN
	case "/correlationId":
		n = s.cidN
	}
	return s.markAt(m, n, pointer)
}

// markAt is markAt(m, pointer, ...) for n, the root's member at pointer (nil:
// absent, or another pointer: walked).
func (s *msgFacts) markAt(m *lint.Message, n *jsonread.Node, pointer string) mark {
	if n == nil {
		return markAt(m, pointer, s.ownType(m), s.ownID(m))
	}
	line, col := m.Pos.Position(n.Offset)
	return mark{line: int32(line), col: int32(col), ptr: pointer, typ: s.ownType(m), id: s.ownID(m)}
}

// seqState is the group's state: the facts of the message observed, forgotten
// after it, and the table of ids its windows keyed by a message id share.
type seqState struct {
	f   msgFacts
	ids idTable
	// requests holds the ids of the requests seen (owned), with their marks at
	// /id: ORCH-SEQ-001 puts every request with an id, and ORCH-SEQ-002, whose
	// window held the same keys put in the same order, reads it.
	requests *idWindow[mark]
}

// requestWindow returns the shared window of requests, made on the first call.
func (s *seqState) requestWindow() *idWindow[mark] {
	if s.requests == nil {
		s.requests = newIDWindow(&s.ids, idReqs, MaxTracked, func(s *idSlot) *mark { return &s.reqs })
	}
	return s.requests
}

// The windows' values in a slot.
func slotOthers(s *idSlot) *mark    { return &s.others }
func slotAnswered(s *idSlot) *mark  { return &s.answered }
func slotSeen(s *idSlot) *mark      { return &s.seen }
func slotReqID(s *idSlot) *struct{} { return &s.reqID }
func slotOpen(s *idSlot) **request  { return &s.open }
func slotFit(s *idSlot) **fitReq    { return &s.fit }

// seesMsg shows a checker the messages isMsg takes alone (Entry.Sees).
func seesMsg(s *seqState, m *lint.Message) bool { return s.f.isMsg(m) }

// groupRules lists the group's rules, in ID order, with the checker of each
// (Sees: seesMsg for those that look at nothing else).
var groupRules = []seqgroup.Entry[seqState]{
	{Rule: SeqCorrelation, Sees: seesMsg, Make: func(s *seqState) lint.Checker {
		return &corrChecker{f: &s.f, reqs: s.requestWindow(), others: newIDWindow(&s.ids, idOthers, MaxTracked, slotOthers)}
	}},
	{Rule: SeqDuplicateResponse, Sees: seesMsg, Make: func(s *seqState) lint.Checker {
		return &dupRespChecker{f: &s.f, reqs: s.requestWindow(), answered: newIDWindow(&s.ids, idAnswered, MaxTracked, slotAnswered)}
	}},
	{Rule: SeqUniqueID, Sees: seesMsg, Make: func(s *seqState) lint.Checker {
		return &uniqueChecker{f: &s.f, seen: newIDWindow(&s.ids, idSeen, MaxTracked, slotSeen)}
	}},
	{Rule: SeqTimeout, Make: func(s *seqState) lint.Checker {
		return &timeoutChecker{f: &s.f, open: newIDWindow(&s.ids, idOpen, MaxTracked, slotOpen), reqIDs: newIDWindow(&s.ids, idReqIDs, MaxTracked, slotReqID)}
	}},
	{Rule: SeqRate, Sees: seesMsg, Make: func(s *seqState) lint.Checker { return &rateChecker{f: &s.f, agents: newWindow(256, &rateStates)} }},
	{Rule: SeqDirection, Sees: seesMsg, Make: func(s *seqState) lint.Checker { return &directionChecker{f: &s.f} }},
	{Rule: SeqShutdown, Make: func(s *seqState) lint.Checker { return &shutdownChecker{f: &s.f} }},
	{Rule: SeqAnswerFits, Sees: seesMsg, Make: func(s *seqState) lint.Checker {
		return &fitChecker{f: &s.f, open: newIDWindow(&s.ids, idFit, MaxTracked, slotFit)}
	}},
	{Rule: SeqCancelled, Sees: seesMsg, Make: func(s *seqState) lint.Checker {
		return &cancelChecker{f: &s.f, cancelled: newWindow(MaxTracked, &cancelsPool)}
	}},
	{Rule: SeqAgentID, Make: func(s *seqState) lint.Checker { return &agentIDChecker{f: &s.f} }},
}

func init() {
	seqgroup.Register(seqGroup, groupRules, func(s *seqState) { s.f = msgFacts{}; s.ids.forget() })
}
