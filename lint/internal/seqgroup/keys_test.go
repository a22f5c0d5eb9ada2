package seqgroup

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestKeysAgrees: random puts, inserts, deletes, lookups, visits and clears give
// what a map gives, through the move from the slice to the map and back after
// Clear (and keys equal but not at the same address).
func TestKeysAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	keys := make([]string, 3*SmallKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("S\x00T-%02d", i)
	}
	key := func() string {
		k := keys[rng.Intn(len(keys))]
		if rng.Intn(4) == 0 {
			k = strings.Clone(k)
		}
		return k
	}
	var got Keys[int]
	want := map[string]int{}
	for step := 0; step < 50000; step++ {
		k := key()
		switch op := rng.Intn(20); {
		case op < 7:
			v := rng.Int()
			_, had := want[k]
			if added := got.Put(k, v); added == had {
				t.Fatalf("step %d: Put(%q) added %v, but the key was there: %v", step, k, added, had)
			}
			want[k] = v
		case op < 9:
			if _, had := want[k]; !had {
				v := rng.Int()
				got.Insert(k, v)
				want[k] = v
			}
		case op < 14:
			g, gok := got.Delete(k)
			w, wok := want[k]
			delete(want, k)
			if g != w || gok != wok {
				t.Fatalf("step %d: Delete(%q) = %v %v, want %v %v", step, k, g, gok, w, wok)
			}
		case op < 18:
			g, gok := got.Get(k)
			w, wok := want[k]
			if g != w || gok != wok {
				t.Fatalf("step %d: Get(%q) = %v %v, want %v %v", step, k, g, gok, w, wok)
			}
		case op == 18:
			var gs, ws []string
			got.Each(func(k string, v int) { gs = append(gs, fmt.Sprint(k, v)) })
			for k, v := range want {
				ws = append(ws, fmt.Sprint(k, v))
			}
			slices.Sort(gs)
			slices.Sort(ws)
			if !slices.Equal(gs, ws) {
				t.Fatalf("step %d: Each visits %v, want %v", step, gs, ws)
			}
		default:
			if rng.Intn(20) == 0 {
				got.Clear(rng.Intn(2 * SmallKeys))
				clear(want)
			}
		}
		if got.Len() != len(want) {
			t.Fatalf("step %d: Len %d, want %d", step, got.Len(), len(want))
		}
	}
}

// latestPlaces is the live keys of order at their latest places, oldest first.
func latestPlaces[V any](b *Bounded[V], order []string) []string {
	var out []string
	seen := map[string]bool{}
	for i := len(order) - 1; i >= 0; i-- {
		if _, ok := b.Get(order[i]); ok && !seen[order[i]] {
			seen[order[i]] = true
			out = append(out, order[i])
		}
	}
	slices.Reverse(out)
	return out
}

// TestBoundedLatestPlaces: whatever compactions happened, the queue's live keys
// at their latest places are the table's keys in the order of their latest
// puts (aos's latestOpen reads the queue from the end for that), and the queue
// stays within 2*max+1 places.
func TestBoundedLatestPlaces(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const max = 8
	var b Bounded[int]
	lastPut := map[string]int{} // key → step of its latest put, for the live keys
	for step := 0; step < 20000; step++ {
		k := fmt.Sprintf("id-%d", rng.Intn(3*max))
		if rng.Intn(3) == 0 {
			b.Delete(k)
			delete(lastPut, k)
		} else {
			_, had := b.Get(k)
			b.Put(k, step, max)
			if !had {
				lastPut[k] = step // a new put queues the key again; a replaced value does not
			}
			for o := range lastPut {
				if _, ok := b.Get(o); !ok {
					delete(lastPut, o) // dropped for room
				}
			}
		}
		want := slices.Collect(func(yield func(string) bool) {
			for k := range lastPut {
				if !yield(k) {
					return
				}
			}
		})
		slices.SortFunc(want, func(x, y string) int { return lastPut[x] - lastPut[y] })
		if got := latestPlaces(&b, b.Order()); !slices.Equal(got, want) {
			t.Fatalf("step %d: live keys at their latest places %v, want %v", step, got, want)
		}
		if n := len(b.Order()); n > 2*max+1 {
			t.Fatalf("step %d: %d places queued for %d keys (max %d)", step, n, b.Len(), max)
		}
	}
}

// TestBoundedReusedKeyIsLinear: one key deleted and put again, over and over
// (a request id reused), keeps the queue short: the old compaction kept every
// place of the live key, so the queue grew without bound and every put scanned it.
func TestBoundedReusedKeyIsLinear(t *testing.T) {
	var b Bounded[int]
	const max = 64
	scanned := 0
	for i := 0; i < 100*max; i++ {
		b.Put("1", i, max)
		scanned += len(b.Order())
		b.Delete("1")
	}
	if n := len(b.Order()); n > 2*max+1 {
		t.Fatalf("%d places queued for one key (max %d)", n, max)
	}
	if per := scanned / (100 * max); per > 2*max {
		t.Fatalf("%d places queued a put on average", per)
	}
}
