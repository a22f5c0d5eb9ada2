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
