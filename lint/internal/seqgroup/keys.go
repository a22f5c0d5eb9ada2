package seqgroup

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
