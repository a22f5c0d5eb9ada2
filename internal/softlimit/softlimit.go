// Package softlimit is aoplint's memory policy for a long stream: a soft memory
// limit that keeps the heap flat while what the lint keeps (its live heap) is
// small, and that moves out of the way when it is not.
//
// A stream's live heap is usually small (about 20 MiB for any length of the
// generated transcripts) and what it allocates is short-lived, so the collector
// is best run only when the heap nears a fixed limit (GOGC off): few cycles, a
// flat RSS. But a fixed limit is a cliff for an input whose live heap comes near
// it (one long session holding its checkers' full tables: about 43 MiB): every
// cycle then frees little, the next comes at once: a build that kept that session
// took 17.7 and 21.0 s of CPU on 1M messages under a 52 MiB limit, 7.9 s with
// GOMEMLIMIT=off. So after every cycle the
// limit is raised to 1.5 times the live heap, plus room for what is not heap,
// when that is more than the base: past the base the collector paces itself as
// with GOGC=50, a cycle for every half of the live heap allocated.
package softlimit

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// DefaultBase is aoplint's base limit (internal/cmd/aoplint's softMemoryLimit
// says how it was chosen); aopbench's in-process lints use it too.
const DefaultBase = 52 << 20

// Room is what the limit leaves above 1.5 times the live heap for the runtime's
// memory that is not heap (stacks, metadata, free pages not yet returned).
const Room = 8 << 20

// Set makes base the soft memory limit, turns the proportional collector off
// (GOGC off) and, from the next collection on, keeps the limit at
// Next(base, live heap) after each.
func Set(base int64) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(base)
	arm(base, -1, nil)
}

// Next is the limit after a collection that left live bytes of heap: base, or
// 1.5 times live plus Room when that is more.
func Next(base, live int64) int64 {
	return max(base, live+live/2+Room)
}

// Tune sets the limit for the live heap the last collection left and returns it.
// (runtime.MemStats' HeapAlloc will not do: read just after a collection it
// still counts the garbage not yet swept, and the limit ratcheted up to 170 MiB
// on 1M messages.)
func Tune(base int64) int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return debug.SetMemoryLimit(-1) // not measured by this runtime: left as it is
	}
	limit := Next(base, int64(s[0].Value.Uint64()))
	debug.SetMemoryLimit(limit)
	return limit
}

// hook is an object the collector finds unreachable in the cycle after it was
// made; its finalizer, run then, tunes the limit and makes the next one. It is
// not a tiny allocation (16 bytes or more), whose finalizer may never run.
type hook struct{ _ [16]byte }

// arm makes the hook of the next collection, and of those after it: n of them
// in all, or no end when n is negative. done, when set, is told the limit each
// hook set, once the next hook is armed (tests).
func arm(base int64, n int, done chan<- int64) {
	runtime.SetFinalizer(&hook{}, func(*hook) {
		limit := Tune(base)
		if n != 1 {
			arm(base, n-1, done)
		}
		if done != nil {
			done <- limit
		}
	})
}
