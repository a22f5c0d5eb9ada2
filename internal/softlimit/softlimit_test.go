package softlimit

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestNext(t *testing.T) {
	const base = 52 << 20
	for _, c := range []struct{ live, want int64 }{
		{0, base},
		{10 << 20, base},
		{29 << 20, base},             // 1.5×29+8 = 51.5: the base still
		{30 << 20, 53 << 20},         // 1.5×30+8
		{43 << 20, 72<<20 + 512<<10}, // one long session's tables: 72.5 MiB
		{500 << 20, 758 << 20},       // and far past the base
	} {
		if got := Next(base, c.live); got != c.want {
			t.Errorf("Next(base, %d MiB) = %d MiB, want %d MiB", c.live>>20, got>>20, c.want>>20)
		}
	}
}

// TestRaisedAfterCollection: with a live heap past half the base, the hook the
// collector runs after a cycle raises the limit, and goes on doing so in later
// cycles (it re-arms itself).
func TestRaisedAfterCollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const base = 8 << 20
	live := make([][]byte, 0, 64)
	for range 64 {
		live = append(live, make([]byte, 256<<10)) // 16 MiB in all
	}
	// Armed once the live heap is there: a cycle the allocation caused would
	// report a smaller one.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(base)
	// The hooks of two cycles, then none (later runs of the test must not see
	// this one's); each hands its limit over once the next is armed.
	done := make(chan int64, 2)
	arm(base, 2, done)
	for cycle := range 2 {
		runtime.GC()
		limit := <-done // the hook of this cycle (no deadline: go test's own bounds a hang)
		if limit < 24<<20+Room {
			t.Fatalf("cycle %d: limit %d MiB with 16 MiB live, want at least 24 MiB + Room", cycle, limit>>20)
		}
		if got := debug.SetMemoryLimit(-1); got != limit {
			t.Fatalf("cycle %d: limit in force %d, the hook set %d", cycle, got, limit)
		}
	}
	runtime.KeepAlive(live)
}
