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

func newWindow[V any](max int) *window[V] { return &window[V]{max: max, m: map[string]V{}} }

func (w *window[V]) get(k string) (V, bool) { v, ok := w.m[k]; return v, ok }

func (w *window[V]) del(k string) { delete(w.m, k) }

func (w *window[V]) len() int { return len(w.m) }

// put adds or replaces k; it reports whether an older entry had to be dropped.
func (w *window[V]) put(k string, v V) bool {
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
	if w.head > 1024 && w.head*2 > len(w.order) { // compact the queue
		w.order = append([]string(nil), w.order[w.head:]...)
		w.head = 0
	}
	return dropped
}

// request is what the sequence rules remember of a request: small, never the message.
type request struct {
	w        lint.Related // where it is
	typ      string
	at       time.Time // when it was sent (zero: unknown)
	deadline time.Time
	taskID   string // get-task: the task asked for
	answered bool
}

// idOf returns the message's id ("" if it has none).
func idOf(m *lint.Message) string { return m.Root.Get("id").String() }

// isMsg reports whether m is an orchmsg protocol message a sequence rule looks at
// (not a harness event).
func isMsg(m *lint.Message) bool {
	return m != nil && m.Root != nil && m.From != "harness" && m.Protocol == ID
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
