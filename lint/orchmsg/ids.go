package orchmsg

import (
	"sync"
	"unsafe"

	"github.com/aopkit/aopkit/lint/internal/seqgroup"
)

// The group's windows keyed by a message id (a message's own id, or the
// correlationId that names one) share one table, idTable: each id has one slot
// there, which holds the entry of every such window that has the id. A
// message's id is then found once (and a response's correlationId once) for
// all of them, where each window of its own (window) hashed it again: seven
// windows, a map each, most of them grown anew in every session.
//
// Each window keeps its own count and insertion-order queue (fifo) and drops
// its oldest entries past its bound exactly as a window of its own does
// (TestIDWindowsAgree holds them to window), so what the rules see does not
// change.

// The windows of the table, one bit each in a slot's has.
const (
	idReqs     = iota // ORCH-SEQ-001 and 002: requests by id (mark at /id)
	idOthers          // ORCH-SEQ-001: other messages by id (mark at /id)
	idAnswered        // ORCH-SEQ-002: answered requests (mark at /correlationId)
	idSeen            // ORCH-SEQ-003: ids seen (mark at /id)
	idReqIDs          // ORCH-SEQ-004: request ids seen
	idOpen            // ORCH-SEQ-004: open requests
	idFit             // ORCH-SEQ-008: open requests
	numIDWindows
)

// idSlot is one id's entries in the windows that hold it.
type idSlot struct {
	reqID struct{} // first: a zero-size last field would be padded
	key   string   // the id (owned: as the first window put it), "" for a free slot
	has   uint8    // the windows that hold key: 1<<idReqs, ...

	reqs, others, answered, seen mark
	open                         *request
	fit                          *fitReq
}

// idTable is a session's table of ids. Its zero value is empty and ready to
// use. Its buffers come from idPool on the first put and go back when every
// window made on it is released.
type idTable struct {
	b              *idBufs // nil until the first put, and after release
	made, released uint8   // the windows made on the table, and those released

	// The last ids found, with their slot (-1: none): a message's id and its
	// correlationId are asked for by several windows in turn. The keys may be
	// strings of the message's line, so the group forgets them after each
	// message (forget); a slot added or freed forgets them too.
	ck [2]string
	ci [2]int32
	cn int // entries of ck and ci in use
}

// idBufs are a table's slots, its index and the windows' queues.
type idBufs struct {
	idx   map[string]int32 // key → slot
	slots []idSlot
	free  []int32 // slots to reuse
	n     [numIDWindows]int
	q     [numIDWindows]fifo
}

var idPool sync.Pool // *idBufs

// forget drops the ids found during the message (they may be strings of its line).
func (t *idTable) forget() {
	t.ck, t.cn = [2]string{}, 0
}

// find returns the slot of k, or -1.
func (t *idTable) find(k string) int32 {
	for i := range t.cn {
		// The same string (the owned id, or the correlationId read once) is
		// asked for by window after window: its bytes are not compared.
		if c := t.ck[i]; len(c) == len(k) && (unsafe.StringData(c) == unsafe.StringData(k) || c == k) {
			return t.ci[i]
		}
	}
	i := t.lookup(k)
	t.remember(k, i)
	return i
}

// remember caches k's slot i, dropping the older of two.
func (t *idTable) remember(k string, i int32) {
	t.ck[1], t.ci[1] = t.ck[0], t.ci[0]
	t.ck[0], t.ci[0] = k, i
	t.cn = min(t.cn+1, len(t.ck))
}

// lookup is find without the cache.
func (t *idTable) lookup(k string) int32 {
	if t.b == nil {
		return -1
	}
	if i, ok := t.b.idx[k]; ok {
		return i
	}
	return -1
}

// add gives k, which the table does not hold, a slot.
func (t *idTable) add(k string) int32 {
	if t.b == nil {
		if b, ok := idPool.Get().(*idBufs); ok {
			t.b = b
		} else {
			t.b = &idBufs{slots: make([]idSlot, 0, 32)}
		}
	}
	b := t.b
	var i int32
	if n := len(b.free); n > 0 {
		i, b.free = b.free[n-1], b.free[:n-1]
	} else {
		i = int32(len(b.slots))
		b.slots = append(b.slots, idSlot{})
	}
	b.slots[i].key = k
	if b.idx == nil {
		// A map from the first id: a session's ids are few (tens) but
		// alike (UUIDs of one length and prefix), which a search in turn
		// compares byte by byte.
		b.idx = make(map[string]int32, 32)
	}
	b.idx[k] = i
	t.forget()
	t.remember(k, i)
	return i
}

// remove frees slot i, which no window holds any more.
func (t *idTable) remove(i int32) {
	b := t.b
	delete(b.idx, b.slots[i].key)
	b.slots[i] = idSlot{}
	b.free = append(b.free, i)
	t.forget()
}

// release marks window bit released; once every window made on the table is,
// the table is emptied and its buffers are pooled (or left to the collector
// when they grew past a few times the usual session).
func (t *idTable) release(bit uint8) {
	t.released |= 1 << bit
	if t.released != t.made {
		return
	}
	t.released = 0
	b := t.b
	if b == nil {
		return
	}
	t.b = nil
	t.forget()
	if cap(b.slots) > seqgroup.MaxPooledEntries {
		return
	}
	for i := range b.q {
		if b.q[i].grown() {
			return
		}
	}
	clear(b.slots) // nothing of this session stays reachable
	b.slots, b.free = b.slots[:0], b.free[:0]
	if len(b.idx) > seqgroup.MaxPooledEntries {
		b.idx = nil
	} else {
		clear(b.idx)
	}
	b.n = [numIDWindows]int{}
	for i := range b.q {
		b.q[i].reset()
	}
	idPool.Put(b)
}

// idWindow is a window (at most max entries, the oldest dropped) of the
// values at(slot) of a table's slots.
type idWindow[V any] struct {
	t   *idTable
	bit uint8
	max int
	at  func(*idSlot) *V
}

// newIDWindow makes the window bit of t.
func newIDWindow[V any](t *idTable, bit uint8, max int, at func(*idSlot) *V) *idWindow[V] {
	t.made |= 1 << bit
	return &idWindow[V]{t: t, bit: bit, max: max, at: at}
}

// slot returns the index of k's slot if the window holds k, else -1.
func (w *idWindow[V]) slot(k string) int32 {
	i := w.t.find(k)
	if i >= 0 && w.t.b.slots[i].has&(1<<w.bit) == 0 {
		return -1
	}
	return i
}

func (w *idWindow[V]) get(k string) (V, bool) {
	if i := w.slot(k); i >= 0 {
		return *w.at(&w.t.b.slots[i]), true
	}
	var zero V
	return zero, false
}

// put adds or replaces k, which the window keeps (it must be owned); it reports
// whether an older entry had to be dropped.
func (w *idWindow[V]) put(k string, v V) bool {
	t := w.t
	i := t.find(k)
	if i < 0 {
		i = t.add(k)
	}
	s := &t.b.slots[i]
	*w.at(s) = v
	if s.has&(1<<w.bit) != 0 {
		return false // k was there: its value replaced
	}
	s.has |= 1 << w.bit
	t.b.n[w.bit]++
	return t.b.q[w.bit].push(k, w.max, w)
}

func (w *idWindow[V]) del(k string) { w.drop(k) }

func (w *idWindow[V]) len() int {
	if w.t.b == nil {
		return 0
	}
	return w.t.b.n[w.bit]
}

// release gives the window up (from a checker's Finish: it is not used
// again); the table is emptied once all its windows are.
func (w *idWindow[V]) release() { w.t.release(w.bit) }

// The window is the table its queue drops from (fifoTable).
func (w *idWindow[V]) size() int         { return w.t.b.n[w.bit] }
func (w *idWindow[V]) has(k string) bool { return w.slot(k) >= 0 }
func (w *idWindow[V]) drop(k string) bool {
	i := w.slot(k)
	if i < 0 {
		return false
	}
	s := &w.t.b.slots[i]
	var zero V
	*w.at(s) = zero
	s.has &^= 1 << w.bit
	w.t.b.n[w.bit]--
	if s.has == 0 {
		w.t.remove(i)
	}
	return true
}
