package seqgroup

// Table is a checker's bounded state (Bounded: past max entries the oldest
// is forgotten), taken from a pool on its first Put and given back by
// Release, so that the many short sessions of a transcript reuse the map and
// queue of the last instead of growing new ones, and a session that never
// uses a table pays nothing for it.
//
// Its keys are kept past the message they came from: they must be owned
// (built by concatenation, or copied), never strings into the message's line.
type Table[V any] struct {
	b    *Bounded[V] // nil until the first put, and after Release
	max  int
	full bool            // an entry was forgotten (Put said so)
	pool *BoundedPool[V] // nil: buffers of its own, not reused
}

// NewTable makes an empty table of at most max entries whose buffers come
// from pool (nil: no reuse).
func NewTable[V any](max int, pool *BoundedPool[V]) Table[V] {
	return Table[V]{max: max, pool: pool}
}

// Get returns the value of k.
func (t *Table[V]) Get(k string) (V, bool) {
	if t.b == nil {
		var zero V
		return zero, false
	}
	return t.b.Get(k)
}

// Put stores v under k (owned) and reports whether an old entry had to be
// forgotten, the first time one was: a checker says so once.
func (t *Table[V]) Put(k string, v V) bool {
	if t.b == nil {
		if t.pool != nil {
			t.b = t.pool.Get()
		} else {
			t.b = &Bounded[V]{}
		}
	}
	if t.b.Put(k, v, t.max) && !t.full {
		t.full = true
		return true
	}
	return false
}

// Full reports whether an entry was forgotten (since NewTable or Reset): a
// key the table does not hold may then have been put and forgotten.
func (t *Table[V]) Full() bool { return t.full }

// Delete removes k.
func (t *Table[V]) Delete(k string) {
	if t.b != nil {
		t.b.Delete(k)
	}
}

// Len is the number of entries.
func (t *Table[V]) Len() int {
	if t.b == nil {
		return 0
	}
	return t.b.Len()
}

// Each calls f with every entry, in no particular order.
func (t *Table[V]) Each(f func(k string, v V)) {
	if t.b != nil {
		t.b.Each(f)
	}
}

// Order is Bounded.Order: the keys in the order of their puts (with keys
// deleted since, and keys put again twice); valid until the next Put.
func (t *Table[V]) Order() []string {
	if t.b == nil {
		return nil
	}
	return t.b.Order()
}

// Release empties the table and gives its buffers back to its pool (from the
// checker's Finish: the table is not used again, and if it were, it would take
// new buffers). Queues grown past a few times the usual session are dropped
// (BoundedPool.Release).
func (t *Table[V]) Release() {
	if t.b != nil && t.pool != nil {
		t.pool.Release(t.b)
	}
	t.b = nil
}

// Reset releases the table and forgets that an entry was forgotten: it starts
// over as a new table of the same bound and pool (a checker's state starting
// over).
func (t *Table[V]) Reset() {
	t.Release()
	t.full = false
}
