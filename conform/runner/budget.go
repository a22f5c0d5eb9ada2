package runner

import (
	"sync"

	"github.com/aopkit/aopkit/conform/harness"
)

// MaxOutputBytes bounds what one scenario keeps of each channel of the agent: its
// stdout (the launcher's cap) and its HTTP requests with the answers (httpBudget).
const MaxOutputBytes = 16 << 20

// httpBudget bounds the HTTP traffic of one scenario kept in the transcript: the
// same byte and record budgets as stdout (MaxOutputBytes, harness.MaxAgentLines). Requests
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
	if b.records >= harness.MaxAgentLines || b.bytes+reserve > MaxOutputBytes {
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
		b.h.Event(b.attempt, "http-truncated", map[string]any{
			"kept_records": b.records, "kept_bytes": b.bytes, "dropped": b.dropped,
			"max_records": harness.MaxAgentLines, "max_bytes": MaxOutputBytes,
		})
	}
}
