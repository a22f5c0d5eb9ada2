package orchmsg

import (
	"container/heap"
	"time"

	"github.com/aopkit/aopkit/lint"
)

// MaxTracked bounds every per-stream map of the sequence rules (open requests,
// recent ids, agents). Past it the oldest entries are dropped, and the rule says
// so once.
const MaxTracked = 4096

// window is a map that keeps at most max entries, dropping the oldest.
type window[V any] struct {
	max     int
	m       map[string]V
	order   []string
	head    int
	evicted bool // an entry was ever dropped because of the bound
}

// newWindow makes an empty window; its map is made on the first put, so the many
// sessions of a transcript whose checkers never track anything pay nothing for it.
func newWindow[V any](max int) *window[V] { return &window[V]{max: max} }

func (w *window[V]) get(k string) (V, bool) { v, ok := w.m[k]; return v, ok }

func (w *window[V]) del(k string) { delete(w.m, k) }

func (w *window[V]) len() int { return len(w.m) }

// put adds or replaces k; it reports whether an older entry had to be dropped.
func (w *window[V]) put(k string, v V) bool {
	if w.m == nil {
		w.m = map[string]V{}
	}
	if _, ok := w.m[k]; ok {
		w.m[k] = v
		return false
	}
	w.m[k] = v
	w.order = append(w.order, k)
	dropped := false
	for len(w.m) > w.max && w.head < len(w.order) {
		old := w.order[w.head]
		w.head++
		if _, ok := w.m[old]; ok {
			delete(w.m, old)
			dropped, w.evicted = true, true
		}
	}
	if live := len(w.order) - w.head; live > 2*w.max+64 || (w.head > 1024 && w.head*2 > len(w.order)) {
		w.compact()
	}
	return dropped
}

// compact drops the queue's entries for deleted keys (and older duplicates of a key
// put again), so the queue stays within a small multiple of the bound even when
// entries are deleted rather than evicted.
func (w *window[V]) compact() {
	seen := make(map[string]bool, len(w.m))
	keep := make([]string, 0, len(w.m))
	for i := len(w.order) - 1; i >= w.head; i-- {
		k := w.order[i]
		if _, ok := w.m[k]; ok && !seen[k] {
			seen[k] = true
			keep = append(keep, k)
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	w.order, w.head = keep, 0
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
type mark struct {
	path      string
	line, col int
	ptr       string
	typ, id   string
}

func markOf(m *lint.Message, pointer string) mark {
	line, col := m.PointerPosition(pointer)
	return mark{path: m.Path, line: line, col: col, ptr: pointer, typ: msgType(m), id: idOf(m)}
}

// related names the message by its type and id, as witness does.
func (k mark) related() lint.Related {
	return lint.Related{Path: k.path, Line: k.line, Column: k.col, Pointer: k.ptr, Message: describe(k.typ, k.id)}
}
