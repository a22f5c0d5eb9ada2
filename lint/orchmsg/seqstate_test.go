package orchmsg

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestWindowOutgrow: windows that move to a grown spare as they outgrow their
// pooled buffers (outgrow), over sessions that reuse the spares, keep what a
// plain bounded map keeps: the newest max keys, oldest dropped first, deleted
// keys gone.
func TestWindowOutgrow(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var pool windowPool[int]
	const max = 200
	var spare *windowBufs[int] // the grown buffers the last session left
	for session := 0; session < 6; session++ {
		w := newWindow(max, &pool)
		want, order := map[string]int{}, []string{}
		for step := 0; step < 1500; step++ {
			k := fmt.Sprintf("k%d", rng.Intn(3*max))
			if rng.Intn(5) == 0 {
				w.del(k)
				delete(want, k)
				continue
			}
			v := rng.Int()
			if _, had := want[k]; !had {
				order = append(order, k)
			}
			want[k] = v
			wantDrop := false
			for len(want) > max {
				old := order[0]
				order = order[1:]
				if _, ok := want[old]; ok {
					delete(want, old)
					wantDrop = true
				}
			}
			if dropped := w.put(k, v); dropped != wantDrop {
				t.Fatalf("session %d step %d: put(%s) dropped %v, want %v", session, step, k, dropped, wantDrop)
			}
			if w.len() != len(want) {
				t.Fatalf("session %d step %d: %d entries, want %d", session, step, w.len(), len(want))
			}
			for k, v := range want {
				if g, ok := w.get(k); !ok || g != v {
					t.Fatalf("session %d step %d: get(%s) = %v %v, want %v", session, step, k, g, ok, v)
				}
			}
		}
		if spare != nil && w.b != spare {
			t.Fatalf("session %d: the window did not move to the grown buffers kept", session)
		}
		w.release()
		var ok bool
		if spare, ok = pool.big.Get(); !ok {
			t.Fatalf("session %d: the grown buffers were not kept", session)
		}
		if spare.keys.Len() != 0 || len(spare.order) != 0 {
			t.Fatalf("session %d: kept buffers hold %d entries", session, spare.keys.Len())
		}
		pool.big.Put(spare)
	}
}
