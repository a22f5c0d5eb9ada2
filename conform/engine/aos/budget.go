package aos

import (
	"github.com/aopkit/aopkit/conform"

	"sync"

	"github.com/aopkit/aopkit/conform/harness"
)

// httpBudget bounds the HTTP traffic of one scenario kept in the transcript: the
// same byte and record budgets as stdout (harness.MaxAgentBytes, harness.MaxAgentLines). Requests
// beyond it are answered without being read or recorded, and counted.
type httpBudget struct {
	h       *harness.H
	attempt int

	mu      sync.Mutex
	records int
	bytes   int64
	dropped int
}

// take reserves one record of at most reserve bytes; false when the budget cannot
// hold it. Reserving before reading bounds what concurrent requests hold in flight.
func (b *httpBudget) take(reserve int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.records >= harness.MaxAgentLines || b.bytes+reserve > harness.MaxAgentBytes {
		b.dropped++
		return false
	}
	b.records++
	b.bytes += reserve
	return true
}

// spend settles a reservation: n bytes were recorded of the reserve taken.
func (b *httpBudget) spend(n int, reserve int64) {
	b.mu.Lock()
	b.bytes += int64(n) - reserve
	b.mu.Unlock()
}

// report records what was dropped, if anything.
func (b *httpBudget) report() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped > 0 {
		b.h.Event(b.attempt, conform.EventHTTPTruncated, conform.Details(
			conform.KeyKeptRecords.Is(b.records), conform.KeyKeptBytes.Is(b.bytes), conform.KeyDropped.Is(b.dropped),
			conform.KeyMaxRecords.Is(harness.MaxAgentLines), conform.KeyMaxBytes.Is(harness.MaxAgentBytes),
		))
	}
}
