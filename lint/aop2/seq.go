package aop2

import (
	"fmt"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
	"github.com/aopkit/aopkit/lint/jsonread"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// This file holds what the sequence checkers share: a view of each message, the
// two clocks, and a bounded table of tasks.

// maxTracked bounds the tasks one checker follows in one session. Past it the
// oldest task is dropped (and the rule says so once, as info).
const maxTracked = 4096

// stamp is when a message was seen: on the harness clock (transcript/1 "at") and
// by the timestamps inside the message. Either may be zero.
type stamp struct{ harness, msg time.Time }

// since is later - earlier on the harness clock when both have it, else on the
// message clock; ok is false when neither clock is known for both.
func since(later, earlier stamp) (d time.Duration, harness, ok bool) {
	if !later.harness.IsZero() && !earlier.harness.IsZero() {
		return later.harness.Sub(earlier.harness), true, true
	}
	if !later.msg.IsZero() && !earlier.msg.IsZero() {
		return later.msg.Sub(earlier.msg), false, true
	}
	return 0, false, false
}

// latest keeps the later of each clock.
func (s *stamp) latest(o stamp) {
	if o.harness.After(s.harness) {
		s.harness = o.harness
	}
	if o.msg.After(s.msg) {
		s.msg = o.msg
	}
}

// view is what the sequence rules read of one message. Its strings are the
// group's own (names.own): a checker may keep them past the message's line.
type view struct {
	typ       string // TASK, RESPONSE, EVENT, or "harness" for a harness record
	event     string // the EVENT's event, or the harness record's event
	taskID    string
	sessionID string
	key       string // names.key(sessionID, taskID): tasks are told apart by session and task_id
	fromAgent bool   // sent by the agent (inferred from the type when the record does not say)
	fromOrch  bool   // a transcript record says the orchestrator sent it
	when      stamp
	now       stamp // the latest of each clock over the session so far, this message's included
	taskMark  mark  // a TASK's markAt(m, taskIDPointer): the witness most of its checkers keep
	root      *jsonread.Node
	sessionN  *jsonread.Node // a TASK's session.session_id, as the view read it (nil: absent)
	percent   *jsonread.Node // a HEARTBEAT's or PROGRESS_UPDATE's percentage (percentPointer), as the view read it
	names     *names         // for the other strings a checker keeps
}

// msgTypes is a set of the view's types (typ), as bits.
type msgTypes uint8

const (
	typeTask     msgTypes = 1 << iota // "TASK"
	typeResponse                      // "RESPONSE"
	typeEvent                         // "EVENT"
	typeOther                         // "harness", or "" (not a message the rules know)

	typesAll          = typeTask | typeResponse | typeEvent | typeOther
	typesTaskResponse = typeTask | typeResponse
	typesMessages     = typeTask | typeResponse | typeEvent
)

// types is the set of the view's one type.
func (v *view) types() msgTypes {
	switch v.typ {
	case "TASK":
		return typeTask
	case "RESPONSE":
		return typeResponse
	case "EVENT":
		return typeEvent
	}
	return typeOther
}

// viewOf makes *v the view of m, written in place (the group's view is not
// made apart and copied in).
func viewOf(v *view, m *lint.Message, ns *names) {
	*v = view{root: m.Root, names: ns}
	v.when.harness = m.At
	if m.Protocol != ID {
		if strings.HasPrefix(m.Kind, "harness:") {
			v.typ = "harness"
			v.event = ns.ownAs(&ns.lastEvent, strings.TrimPrefix(m.Kind, "harness:"))
		}
		return
	}
	root := m.Root
	if root == nil {
		return
	}
	var f fields
	f.read(root)
	v.typ = f.messageType.String()
	switch v.typ {
	case "TASK":
		v.typ = "TASK"
		id := f.task.Get("task_id")
		v.taskID = ns.ownAs(&ns.lastTask, id.String())
		if id != nil {
			v.taskMark = markNode(m, id, taskIDPointer)
		} else {
			v.taskMark = markAt(m, taskIDPointer)
		}
		v.sessionN = f.session.Get("session_id")
		v.sessionID = ns.ownAs(&ns.lastSession, v.sessionN.String())
		v.when.msg = msgTime(f.session.Get("created_at"))
	case "RESPONSE":
		v.typ = "RESPONSE"
		v.taskID = ns.ownAs(&ns.lastTask, f.taskID.String())
		v.sessionID = ns.ownAs(&ns.lastSession, f.sessionID.String())
		v.when.msg = msgTime(f.timing.Get("completed_at"))
	case "EVENT":
		v.typ = "EVENT"
		v.event = ns.ownEvent(f.event.String())
		v.taskID = ns.ownAs(&ns.lastTask, f.taskID.String())
		v.sessionID = ns.ownAs(&ns.lastSession, f.sessionID.String())
		v.when.msg = msgTime(f.timestamp)
		switch m.Kind { // as percentPointer names it
		case kindHeartbeat:
			v.percent = f.progressPercentage
		case kindProgress:
			v.percent = f.progress.Get("percentage")
		}
	default:
		v.typ = "" // compared only, but never kept from the line
	}
	if v.sessionID == ns.lastKeySession && v.taskID == ns.lastKeyTask {
		v.key = ns.lastKey // the messages of a task follow one another
	} else {
		v.key = ns.key(v.sessionID, v.taskID)
		ns.lastKeySession, ns.lastKeyTask, ns.lastKey = v.sessionID, v.taskID, v.key
	}
	switch m.From {
	case "agent":
		v.fromAgent = true
	case "orchestrator":
		v.fromOrch = true
	case "":
		v.fromAgent = v.typ != "TASK"
	}
}

// fields are the members of a message the view reads, found in one pass over
// its members instead of a lookup each (nil: absent).
type fields struct {
	messageType, event, taskID, sessionID, timestamp *jsonread.Node
	task, session, timing                            *jsonread.Node
	progressPercentage, progress                     *jsonread.Node
}

// read finds the fields among root's members in one pass
// (jsonread.ReadMembers) as root.Get finds each: the last member of the key
// (root.Get's answer when a key is repeated), nil when root is not an object
// (FuzzViewFields holds it to Get).
func (f *fields) read(root *jsonread.Node) { jsonread.ReadMembers(root, f, (*fields).slot) }

// slot is where the fields hold the member key (nil: none).
func (f *fields) slot(key string) **jsonread.Node {
	switch key {
	case "message_type":
		return &f.messageType
	case "event":
		return &f.event
	case "task_id":
		return &f.taskID
	case "session_id":
		return &f.sessionID
	case "timestamp":
		return &f.timestamp
	case "task":
		return &f.task
	case "session":
		return &f.session
	case "timing":
		return &f.timing
	case "progress_percentage":
		return &f.progressPercentage
	case "progress":
		return &f.progress
	}
	return nil
}

// taskIDPointer is where a TASK names its task.
const taskIDPointer = "/task/task_id"

// mark is markAt(m, pointer) for the view's message m, the TASK's task_id
// read once.
func (v *view) mark(m *lint.Message, pointer string) mark {
	if pointer == taskIDPointer && v.typ == "TASK" {
		return v.taskMark
	}
	return markAt(m, pointer)
}

// sessionMark is markAt(m, "/session/session_id") for the view's TASK m, at
// the node the view read.
func (v *view) sessionMark(m *lint.Message) mark {
	if v.sessionN != nil {
		return markNode(m, v.sessionN, "/session/session_id")
	}
	return markAt(m, "/session/session_id")
}

// taskOfKey returns the task_id part of a task key (names.key).
func taskOfKey(key string) string { return key[strings.IndexByte(key, 0)+1:] }

// names makes owned copies of the strings the sequence checkers keep: a string
// of a message points into its line (lint.Message), and one kept would keep the
// whole line alive for as long as the session's state, so what outlives the
// message is copied (seqgroup.Names: the last strings handed out are reused,
// long ones interned).
type names struct {
	seqgroup.Names        // at most maxNames long strings interned
	buf            []byte // a key being made
	// The last value of each string of a view (owned), compared first.
	lastEvent, lastTask, lastSession, lastKeySession, lastKeyTask, lastKey string
}

// ownAs is own for the view's string whose last value is *last (Names.OwnAs).
func (ns *names) ownAs(last *string, s string) string { return ns.OwnAs(last, s, maxNames) }

// ownEvent is ownAs for an EVENT's event: one of the spec's names is its own
// string (eventNames), neither copied nor looked up.
func (ns *names) ownEvent(s string) string {
	if len(ns.lastEvent) == len(s) && ns.lastEvent == s {
		return ns.lastEvent
	}
	if i := eventIndex(s); i >= 0 {
		ns.lastEvent = eventNames[i]
		return ns.lastEvent
	}
	return ns.ownAs(&ns.lastEvent, s)
}

// key is the key of a task in the sequence rules' tables, owned:
// sessionID + "\x00" + taskID, as a task_id is unique within its session (§1.2:
// a RESPONSE names both), so two sessions interleaved in one stream may both have
// a "TASK-001". It is "" when taskID is. It is made in a buffer and copied once
// per distinct key, not once per message.
func (ns *names) key(sessionID, taskID string) string {
	if taskID == "" {
		return ""
	}
	ns.buf = append(append(append(ns.buf[:0], sessionID...), 0), taskID...)
	return ns.ownBytes(ns.buf)
}

// maxNames bounds the interned (long) strings; past it they are forgotten (the
// strings handed out stay valid).
const maxNames = 4096

// own returns an owned copy of s, equal to it.
func (ns *names) own(s string) string { return ns.Own(s, maxNames) }

// ownBytes returns an owned string equal to b.
func (ns *names) ownBytes(b []byte) string { return ns.OwnBytes(b, maxNames) }

// delegated reports whether a TASK was sent by an executor delegating a sub-task:
// the transcript says the agent sent it or, in a plain stream, it names a parent
// task. Its RESPONSE, heartbeats and timeout are the sub-executor's business and
// need not be recorded in this stream.
func (v *view) delegated() bool {
	return v.fromAgent || (!v.fromOrch && v.root.Path("task", "parent_task_id").String() != "")
}

func msgTime(n *jsonread.Node) time.Time {
	t, zone, ok := aop2spec.ParseTime(n.String())
	if !ok || zone == isotime.ZoneNone {
		return time.Time{}
	}
	return t
}

// mark is where a witness stands; its text is made only when a diagnostic cites
// it (lint.Witness with the text made on every TASK was most of the group's
// garbage).
type mark struct {
	path      string
	line, col int
	pointer   string // a constant of the rules, never a string of the message
}

func markAt(m *lint.Message, pointer string) mark {
	if pointer == "" && m.Root != nil {
		return markNode(m, m.Root, pointer) // the whole message: where PointerPosition finds it
	}
	line, col := m.PointerPosition(pointer)
	return mark{path: m.Path, line: line, col: col, pointer: pointer}
}

// markNode is markAt for n, the node at pointer that the caller looked up
// (m.Node(pointer), not nil): PointerPosition would find the same node, so its
// position is read without walking the pointer again.
func markNode(m *lint.Message, n *jsonread.Node, pointer string) mark {
	line, col := m.Pos.Position(n.Offset)
	return mark{path: m.Path, line: line, col: col, pointer: pointer}
}

// numText is a number's text as written in a message, owned: kept inline when
// short (every progress percentage and limit is one; values that rarely repeat
// are not worth interning), copied when longer.
type numText struct {
	short [23]byte
	n     uint8
	long  string
}

func ownNum(s string) numText {
	var t numText
	if len(s) <= len(t.short) {
		t.n = uint8(copy(t.short[:], s))
	} else {
		t.long = strings.Clone(s)
	}
	return t
}

func (t *numText) String() string {
	if t.long != "" {
		return t.long
	}
	return string(t.short[:t.n])
}

// with is the witness at k saying text.
func (k mark) with(text string) lint.Related {
	return lint.Related{Path: k.path, Line: k.line, Column: k.col, Pointer: k.pointer, Message: text}
}

// table is a bounded map of per-task state, oldest dropped first. Its entries
// are reused: a deleted one serves a later add, and a group checker that
// finished goes back to a pool with its tables (reset), so a steady stream
// allocates no state per task.
//
// Its keys are owned (names.key: a task's messages share its key), and a
// session follows a few tasks at a time: seqgroup.Keys finds them in a short
// slice, mostly by their pointers.
type table[T any] struct {
	keys   seqgroup.Keys[*slot[T]]
	order  []string // the keys added, oldest first from head (a key may recur)
	head   int
	free   []*slot[T]
	capped bool
	epoch  uint32 // of the last each
	// upkeep counts the keys of order that add's upkeep (dropping the oldest,
	// compacting, moving to the front) went over: TestTableUpkeepIsLinear
	// holds it to a few per add, whatever the pattern of adds and deletes.
	upkeep int
}

type slot[T any] struct {
	v    T
	seen uint32 // the epoch of the last each that visited it
}

// find returns the entry of k, nil when k has none.
func (t *table[T]) find(k string) *slot[T] {
	s, _ := t.keys.Get(k)
	return s
}

func (t *table[T]) get(k string) *T {
	if s := t.find(k); s != nil {
		return &s.v
	}
	return nil
}

// add returns the entry of k, a new one when k has none: its fields are stale
// (the caller sets them all). first is true the first time the cap made it drop
// a task.
func (t *table[T]) add(k string) (v *T, first bool) {
	if s := t.find(k); s != nil {
		return &s.v, false
	}
	for t.len() >= maxTracked && t.head < len(t.order) {
		old := t.order[t.head]
		t.order[t.head] = ""
		t.head++
		t.upkeep++
		if s, ok := t.keys.Delete(old); ok {
			t.release(s)
			if !t.capped {
				t.capped, first = true, true
			}
		}
	}
	var s *slot[T]
	if n := len(t.free); n > 0 {
		s, t.free = t.free[n-1], t.free[:n-1]
	} else {
		s = new(slot[T])
	}
	t.keys.Insert(k, s)
	t.order = append(t.order, k)
	if len(t.order)-t.head > 2*maxTracked {
		// Compact: keep the first place of each live key, the one each visits
		// it at. A key deleted and added again (a checker that deletes a
		// task's entry and adds it anew for each TASK of the task_id) recurs
		// in order; keeping every place of a live key kept order this long,
		// and each add after it compacted it all again: a session of 30k
		// TASKs of one task_id took 2 s, 300k minutes.
		// seqgroup.Bounded.compact (lint/internal/seqgroup/keys.go) is the
		// same fix for its queue but keeps a key's latest place (aos's
		// latestOpen scans from the back); here the first place keeps each's
		// order and the drop order the same as without compaction. Not shared
		// for that, and because this marks with the slots' epoch, no map.
		t.upkeep += len(t.order) - t.head
		t.epoch++
		live := t.order[:0]
		for _, k := range t.order[t.head:] {
			if s := t.find(k); s != nil && s.seen != t.epoch {
				s.seen = t.epoch
				live = append(live, k)
			}
		}
		clear(t.order[len(live):])
		t.order, t.head = live, 0
	} else if t.head > 64 && t.head > len(t.order)/2 { // the same keys, moved to the front
		n := copy(t.order, t.order[t.head:])
		clear(t.order[n:])
		t.order, t.head = t.order[:n], 0
		t.upkeep += n
	}
	return &s.v, first
}

// put is add for a table whose cap drops tasks silently (a history).
func (t *table[T]) put(k string) *T {
	v, _ := t.add(k)
	return v
}

// maxFree bounds the entries a table keeps for reuse.
const maxFree = 64

func (t *table[T]) release(s *slot[T]) {
	if len(t.free) < maxFree {
		t.free = append(t.free, s)
	}
}

func (t *table[T]) del(k string) {
	if s, ok := t.keys.Delete(k); ok {
		t.release(s)
	}
}

func (t *table[T]) len() int { return t.keys.Len() }

// each visits the live entries, oldest first.
func (t *table[T]) each(f func(k string, v *T)) {
	t.epoch++
	for _, k := range t.order[t.head:] {
		if s := t.find(k); s != nil && s.seen != t.epoch {
			s.seen = t.epoch
			f(k, &s.v)
		}
	}
}

// reset empties the table for another session, keeping its memory when it is
// small.
func (t *table[T]) reset() {
	t.keys.Each(func(_ string, s *slot[T]) { t.release(s) })
	t.keys.Clear(maxFree)
	if cap(t.order) > 4*maxFree {
		t.order = nil
	} else {
		clear(t.order)
		t.order = t.order[:0]
	}
	t.head, t.capped, t.upkeep = 0, false, 0
}

// track adds the entry of k and reports (as info, with the checker's rule) the
// first time the cap drops a task.
func track[T any](p *lint.Pass, t *table[T], k string) *T {
	v, first := t.add(k)
	if first {
		capNote(p)
	}
	return v
}

// capNote reports (as info, with p's rule) that the cap made a table drop a task.
func capNote(p *lint.Pass) {
	p.ReportSevf(lint.Info, "", "more than %d tasks are open in this session: the oldest are no longer followed by %s", maxTracked, p.Rule.ID)
}

// secs renders a duration in seconds: "45 s", "1.5 s".
func secs(d time.Duration) string {
	s := d.Seconds()
	if s == float64(int64(s)) {
		return fmt.Sprintf("%d s", int64(s))
	}
	return fmt.Sprintf("%.1f s", s)
}

// timers is what a harness transcript says about the clock of a session: the
// "timers-start" event (docs/transcript-format.md) moves the origin of every
// timing requirement to the agent's first sign of life and carries the
// --timeout-scale that stretches every limit, so aoplint applies exactly the
// limits the harness applied.
type timers struct {
	scale float64 // 1 when the transcript does not say
}

// observe reads a harness record; it returns the new origin (zero when v is not a
// timers-start event).
func (t *timers) observe(v *view) time.Time {
	if v.typ != "harness" || v.event != "timers-start" || v.root == nil {
		return time.Time{}
	}
	if f, ok := v.root.Path("detail", "timeout_scale").Float(); ok && f > 0 {
		t.scale = f
	}
	return v.when.harness
}

// stretch scales a limit by the session's --timeout-scale.
func (t *timers) stretch(d time.Duration) time.Duration {
	if t.scale <= 0 {
		return d
	}
	return time.Duration(float64(d) * t.scale)
}
