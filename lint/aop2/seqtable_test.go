package aop2

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/internal/seqgroup"
)

// refTable is the map-only table the slice-then-map one replaced, kept as the
// reference of TestTableAgrees (without the cap, which TestStateIsBounded
// covers: tables here stay far below maxTracked).
type refTable struct {
	m     map[string]*int
	order []string
}

func (t *refTable) add(k string) *int {
	if t.m == nil {
		t.m = map[string]*int{}
	}
	if v, ok := t.m[k]; ok {
		return v
	}
	v := new(int)
	t.m[k] = v
	t.order = append(t.order, k)
	return v
}

func (t *refTable) del(k string) { delete(t.m, k) }

func (t *refTable) each(f func(k string, v *int)) {
	seen := map[string]bool{}
	for _, k := range t.order {
		if v, ok := t.m[k]; ok && !seen[k] {
			seen[k] = true
			f(k, v)
		}
	}
}

// TestTableAgrees: random adds, deletes, lookups, visits and resets give what
// the map-only table gave, through the move from the slice to a map (and keys
// equal but not interned).
func TestTableAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	keys := make([]string, 3*seqgroup.SmallKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("S\x00T-%02d", i)
	}
	key := func() string {
		k := keys[rng.Intn(len(keys))]
		if rng.Intn(4) == 0 {
			k = strings.Clone(k) // equal, at another address
		}
		return k
	}
	var got table[int]
	var want refTable
	for step := 0; step < 20000; step++ {
		switch op := rng.Intn(10); {
		case op < 4:
			k, v := key(), rng.Int()
			*got.put(k) = v
			*want.add(k) = v
		case op < 7:
			k := key()
			got.del(k)
			want.del(k)
		case op < 9:
			k := key()
			g, w := got.get(k), want.m[k]
			if (g == nil) != (w == nil) || (g != nil && *g != *w) {
				t.Fatalf("step %d: get(%q) differs", step, k)
			}
		case step%50 == 0:
			got.reset()
			want = refTable{}
		default:
			var gs, ws []string
			got.each(func(k string, v *int) { gs = append(gs, fmt.Sprint(k, *v)) })
			want.each(func(k string, v *int) { ws = append(ws, fmt.Sprint(k, *v)) })
			if fmt.Sprint(gs) != fmt.Sprint(ws) {
				t.Fatalf("step %d: each visits %v, want %v", step, gs, ws)
			}
		}
		if got.len() != len(want.m) {
			t.Fatalf("step %d: len %d, want %d", step, got.len(), len(want.m))
		}
	}
}
