package orchmsg

import (
	"container/heap"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// MaxTracked bounds every per-stream map of the sequence rules (open requests,
// recent ids, agents). Past it the oldest entries are dropped, and the rule says
// so once.
const MaxTracked = 4096

// window is a map that keeps at most max entries, dropping the oldest.
//
// Its keys are kept past the message they came from, so they must be owned
// (ownID), never strings into the message's line. Its map and queue come from
// pool on the first put and go back when the checker finishes (release): the
// many short sessions of a transcript reuse them instead of growing new ones.
type window[V any] struct {
	max  int
	b    *windowBufs[V] // nil until the first put, and after release
	pool *windowPool[V]
}

// windowBufs are a window's entries and its insertion-order queue.
type windowBufs[V any] struct {
	keys seqgroup.Keys[V]
	q    fifo
}

// windowBufs is the table its queue drops from.
func (b *windowBufs[V]) size() int { return b.keys.Len() }
func (b *windowBufs[V]) has(k string) bool {
	_, ok := b.keys.Get(k)
	return ok
}
func (b *windowBufs[V]) drop(k string) bool {
	_, ok := b.keys.Delete(k)
	return ok
}

// windowPool keeps the buffers of released windows of one value type.
type windowPool[V any] struct{ p sync.Pool }

// The pools of the windows' value types.
var (
	rateStates  windowPool[*rateState]
	cancelsPool windowPool[*cancelled]
)

// newWindow makes an empty window; its buffers are taken on the first put, so the
// many sessions of a transcript whose checkers never track anything pay nothing.
func newWindow[V any](max int, pool *windowPool[V]) *window[V] {
	return &window[V]{max: max, pool: pool}
}

func (w *window[V]) get(k string) (V, bool) {
	if w.b == nil {
		var zero V
		return zero, false
	}
	return w.b.keys.Get(k)
}

func (w *window[V]) del(k string) {
	if w.b != nil {
		w.b.keys.Delete(k)
	}
}

func (w *window[V]) len() int {
	if w.b == nil {
		return 0
	}
	return w.b.keys.Len()
}

// each calls f with every value of the window.
func (w *window[V]) each(f func(V)) {
	if w.b == nil {
		return
	}
	w.b.keys.Each(func(_ string, v V) { f(v) })
}

// put adds or replaces k, which the window keeps (it must be owned); it reports
// whether an older entry had to be dropped.
func (w *window[V]) put(k string, v V) bool {
	b := w.bufs()
	if !b.keys.Put(k, v) {
		return false // k was there: its value replaced
	}
	return b.q.push(k, w.max, b)
}

// bufs returns the window's buffers, taken from the pool on the first call.
func (w *window[V]) bufs() *windowBufs[V] {
	if w.b == nil {
		if b, ok := w.pool.p.Get().(*windowBufs[V]); ok {
			w.b = b
		} else {
			w.b = &windowBufs[V]{}
		}
	}
	return w.b
}

// release empties the window and gives its buffers back to the pool (from a
// checker's Finish: the window is not used again, and if it were, it would take
// new buffers). Buffers grown past a few times the usual session are dropped.
func (w *window[V]) release() {
	b := w.b
	if b == nil {
		return
	}
	w.b = nil
	if b.q.grown() {
		return // grown past the usual session: left to the collector, not cleared
	}
	b.keys.Clear(seqgroup.MaxPooledEntries) // drop the keys and values: nothing of this session stays reachable
	b.q.reset()
	w.pool.p.Put(b)
}

// fifoTable is the table a fifo queues the keys of.
type fifoTable interface {
	size() int          // the entries it holds
	has(k string) bool  // whether it holds k
	drop(k string) bool // removes k, reporting whether it held it
}

// fifo is a bounded table's insertion-order queue: the keys added, oldest
// first from head (a key deleted from the table stays queued until it comes
// up or a compaction drops it; a key added again is queued again).
type fifo struct {
	order []string
	head  int
	// spare and seen are compact's: the queue it builds (swapped with order)
	// and its set of keys, kept so that compacting allocates nothing.
	spare []string
	seen  map[string]struct{}
}

// push queues k, just added to t, and drops the oldest entries of t past max;
// it reports whether one was dropped. An older place of k itself still queued
// (k deleted and added again) drops nothing: k is the newest entry (as in
// seqgroup.Bounded, which evicts before it adds).
func (q *fifo) push(k string, max int, t fifoTable) bool {
	if q.order == nil {
		q.order = make([]string, 0, 16) // past the few first growths of a session's queue
	}
	q.order = append(q.order, k)
	dropped := false
	for t.size() > max && q.head < len(q.order) {
		old := q.order[q.head]
		q.head++
		if old == k && q.head < len(q.order) {
			continue // an older place of k, which was just put again: the newest entry, not the oldest
		}
		if t.drop(old) {
			dropped = true
		}
	}
	if live := len(q.order) - q.head; live > 2*max+64 || (q.head > 1024 && q.head*2 > len(q.order)) {
		q.compact(t)
	}
	return dropped
}

// compact drops the queue's entries for deleted keys (and older duplicates of a key
// put again), so the queue stays within a small multiple of the bound even when
// entries are deleted rather than evicted.
func (q *fifo) compact(t fifoTable) {
	if q.seen == nil {
		q.seen = make(map[string]struct{}, t.size())
	}
	keep := q.spare[:0]
	for i := len(q.order) - 1; i >= q.head; i-- {
		k := q.order[i]
		if t.has(k) {
			if _, dup := q.seen[k]; !dup {
				q.seen[k] = struct{}{}
				keep = append(keep, k)
			}
		}
	}
	clear(q.seen)
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	clear(q.order) // the old queue becomes the next spare: it must pin no key
	q.order, q.spare, q.head = keep, q.order[:0], 0
}

// grown reports whether the queue grew past a few times the usual session: its
// table is not worth pooling (seqgroup.MaxPooledEntries).
func (q *fifo) grown() bool {
	return cap(q.order) > seqgroup.MaxPooledEntries || cap(q.spare) > seqgroup.MaxPooledEntries
}

// reset empties the queue, keeping its memory and pinning no key.
func (q *fifo) reset() {
	clear(q.order)
	clear(q.spare[:cap(q.spare)])
	q.order, q.spare, q.head = q.order[:0], q.spare[:0], 0
}

// ownID returns id as the windows keep it: a copy, so that a window pins a few
// bytes, not the message's whole line (lint.Message: a kept string of the tree
// keeps its line alive).
func ownID(id string) string { return strings.Clone(id) }

// ownType returns a message type as a mark keeps it: the spec's own string for
// the fourteen types (spec.Type, no copy), else a copy.
func ownType(t string) string {
	if s := spec.Type(t); s != "" {
		return s
	}
	return strings.Clone(t)
}

// request is what the sequence rules remember of a request: small, never the message.
type request struct {
	id       string
	w        mark // where it is (its text is made only for a finding)
	typ      string
	at       time.Time // when it was sent (zero: unknown)
	deadline time.Time
	answered bool
}

// idOf returns the message's id ("" if it has none).
func idOf(m *lint.Message) string { return m.Root.Get("id").String() }

// isMsg reports whether m is an orchmsg protocol message a sequence rule looks at
// (not a harness event).
func isMsg(m *lint.Message) bool {
	return m != nil && m.Root != nil && m.From != "harness" && m.Protocol == ID && m.Kind != "control"
}

// deadlineHeap orders open requests by deadline.
type deadlineHeap []*request

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].deadline.Before(h[j].deadline) }
func (h deadlineHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *deadlineHeap) Push(x any)        { *h = append(*h, x.(*request)) }
func (h *deadlineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

var _ heap.Interface = (*deadlineHeap)(nil)

// mark is where a message is, kept cheaply for every message a checker may name
// later; it becomes a lint.Related (with its text) only when a diagnostic needs it.
//
// Its strings are owned: path is the file's, ptr a constant of the rules, typ
// interned (ownType) and id the owned id the caller passes (ownID).
type mark struct {
	line, col int32
	ptr       string
	typ, id   string
}

// markAt marks m at pointer; typ is m's type as ownType returns it, id its id,
// owned.
func markAt(m *lint.Message, pointer, typ, id string) mark {
	var line, col int
	if pointer == "" && m.Root != nil {
		line, col = m.Pos.Position(m.Root.Offset) // the whole message: where PointerPosition finds it
	} else {
		line, col = m.PointerPosition(pointer)
	}
	return mark{line: int32(line), col: int32(col), ptr: pointer, typ: typ, id: id}
}

// related names the message by its type and id, as witness does; path is the
// stream's (a mark keeps none: every message a checker sees is of one stream,
// and so of one path, the path of the message it is observing).
func (k mark) related(path string) lint.Related {
	return lint.Related{Path: path, Line: int(k.line), Column: int(k.col), Pointer: k.ptr, Message: describe(k.typ, k.id)}
}
