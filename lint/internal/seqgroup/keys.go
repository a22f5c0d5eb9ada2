package seqgroup

import "sync"

// Keys maps string keys to values, for the state of a sequence rule: a session
// follows a few tasks, requests or agents at a time, so while it holds at most
// SmallKeys entries they are a short slice searched in turn (the keys are owned
// and often interned, so a hit mostly compares pointers), and only past that a
// map. Its zero value is empty and ready to use.
type Keys[V any] struct {
	small []keyed[V] // the entries, until big
	m     map[string]V
	big   bool // the entries are in m (from the first past SmallKeys until Clear)
}

// SmallKeys is the most entries Keys holds in its slice before it moves them to
// a map.
const SmallKeys = 8

type keyed[V any] struct {
	k string
	v V
}

// Get returns the value of k.
func (x *Keys[V]) Get(k string) (v V, ok bool) {
	if x.big {
		v, ok = x.m[k]
		return v, ok
	}
	for i := range x.small {
		if x.small[i].k == k {
			return x.small[i].v, true
		}
	}
	return v, false
}

// Put makes v the value of k and reports whether k is new.
func (x *Keys[V]) Put(k string, v V) (added bool) {
	if x.big {
		n := len(x.m)
		x.m[k] = v
		return len(x.m) != n // one hash, not a lookup and then a store
	}
	for i := range x.small {
		if x.small[i].k == k {
			x.small[i].v = v
			return false
		}
	}
	x.Insert(k, v)
	return true
}

// Insert adds k, which x does not hold, with the value v.
func (x *Keys[V]) Insert(k string, v V) {
	if x.big {
		x.m[k] = v
		return
	}
	if len(x.small) < SmallKeys {
		x.small = append(x.small, keyed[V]{k, v})
		return
	}
	if x.m == nil {
		x.m = make(map[string]V, 2*SmallKeys)
	}
	for _, e := range x.small {
		x.m[e.k] = e.v
	}
	clear(x.small)
	x.small, x.big = x.small[:0], true
	x.m[k] = v
}

// Delete removes k and returns the value it had.
func (x *Keys[V]) Delete(k string) (v V, ok bool) {
	if x.big {
		if v, ok = x.m[k]; ok {
			delete(x.m, k)
		}
		return v, ok
	}
	for i := range x.small {
		if x.small[i].k == k {
			v, last := x.small[i].v, len(x.small)-1
			x.small[i] = x.small[last]
			x.small[last] = keyed[V]{}
			x.small = x.small[:last]
			return v, true
		}
	}
	return v, false
}

// Len is the number of entries.
func (x *Keys[V]) Len() int {
	if x.big {
		return len(x.m)
	}
	return len(x.small)
}

// Each calls f with every entry, in no particular order.
func (x *Keys[V]) Each(f func(k string, v V)) {
	if x.big {
		for k, v := range x.m {
			f(k, v)
		}
		return
	}
	for _, e := range x.small {
		f(e.k, e.v)
	}
}

// Clear empties x, keeping its slice, and its map unless that held more than
// maxMap entries (a map keeps the capacity it grew to).
func (x *Keys[V]) Clear(maxMap int) {
	clear(x.small)
	x.small = x.small[:0]
	if len(x.m) > maxMap {
		x.m = nil
	} else {
		clear(x.m)
	}
	x.big = false
}

// Bounded is Keys with a cap: when it holds max entries, a new key drops the
// oldest one put first (by the order of the puts; a key deleted and put again
// is queued again, and an older place of it still queued counts as its own
// until the queue is compacted, which keeps a key's latest place only).
// Its zero value is empty and ready to use.
type Bounded[V any] struct {
	Keys[V]
	order []string // the keys put, oldest first from head (a key may recur)
	head  int      // the queue is order[head:]: dropped keys are not sliced off, so appending reuses the array
}

// Put stores v under k (owned: the table keeps it) and reports whether an
// older entry was dropped to make room.
func (b *Bounded[V]) Put(k string, v V, max int) (dropped bool) {
	if b.Len() < max {
		if !b.Keys.Put(k, v) {
			return false // k was there: its value replaced
		}
	} else {
		if _, ok := b.Get(k); ok {
			b.Keys.Put(k, v)
			return false
		}
		for b.Len() >= max && b.head < len(b.order) {
			old := b.order[b.head]
			b.order[b.head] = ""
			b.head++
			if _, ok := b.Delete(old); ok {
				dropped = true
			}
		}
		b.Insert(k, v)
	}
	if b.head > 0 && len(b.order) == cap(b.order) {
		// room at the front: use it instead of a bigger array
		n := copy(b.order, b.order[b.head:])
		clear(b.order[n:])
		b.order, b.head = b.order[:n], 0
	}
	b.order = append(b.order, k)
	if len(b.order)-b.head > 2*max {
		b.compact()
	}
	return dropped
}

// compact leaves in the queue each live key once, at its latest place, in
// order, at the front. The queue then holds at most Len() (≤ max) keys, so the
// next compaction is max puts away: a key deleted and put again over and over
// (one request id reused) costs O(1) a put. Keeping every place of a live key
// instead kept the queue full of one key's places: every later put compacted
// it again, over 2*max entries (aos: 60k messages of one id took 5.1 s).
// (Until a compaction, an older place of a key put again still counts as its
// own, for Put's drops; the latest place is the one Order's readers look for:
// aos's latestOpen scans Order from the back, and keeping latest places keeps
// its answer the same whether a compaction happened or not.)
// lint/aop2's table (seq.go, add) compacts its own queue the same way but keeps
// each key's first place, the one its each visits a key at; it marks keys with
// an epoch on its slots instead of this map. The loop is not shared: the two
// keep different places for their readers and mark seen keys differently, so a
// helper would need a direction and two funcs for a dozen lines.
func (b *Bounded[V]) compact() {
	q := b.order[b.head:]
	seen := make(map[string]struct{}, b.Len())
	w := len(q)
	for i := len(q) - 1; i >= 0; i-- { // from the latest: w stays above i
		o := q[i]
		if _, dup := seen[o]; dup {
			continue
		}
		if _, ok := b.Get(o); !ok {
			continue
		}
		seen[o] = struct{}{}
		w--
		q[w] = o
	}
	n := copy(b.order, q[w:])
	clear(b.order[n:])
	b.order, b.head = b.order[:n], 0
}

// Order returns the queued keys, oldest first (with keys deleted since, and
// keys put again twice); valid until the next Put.
func (b *Bounded[V]) Order() []string { return b.order[b.head:] }

// QueueCap is the capacity of the queue: a table grown past the usual session
// is not worth pooling.
func (b *Bounded[V]) QueueCap() int { return cap(b.order) }

// Clear empties b, keeping its memory (its map unless that held more than
// maxMap entries).
func (b *Bounded[V]) Clear(maxMap int) {
	b.Keys.Clear(maxMap)
	clear(b.order)
	b.order, b.head = b.order[:0], 0
}

// BoundedPool keeps the buffers of released Bounded tables of one value type,
// for the many short sessions of a transcript. Its zero value is empty and
// ready to use.
type BoundedPool[V any] struct{ p sync.Pool }

// Get returns an empty table: a released one, or a new one.
func (p *BoundedPool[V]) Get() *Bounded[V] {
	if b, ok := p.p.Get().(*Bounded[V]); ok {
		return b
	}
	return &Bounded[V]{}
}

// Release empties b, so that nothing of its session stays reachable, and keeps
// it for Get; a table whose queue grew past MaxPooledEntries is left to the
// collector instead.
func (p *BoundedPool[V]) Release(b *Bounded[V]) {
	if b.QueueCap() > MaxPooledEntries {
		return
	}
	b.Clear(MaxPooledEntries)
	p.p.Put(b)
}
