// Package clock is the time source of the reference engine. All engine code takes a
// Clock, so that its tests run instantly on a Fake clock and the same code runs on
// the wall clock against real processes.
package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock is the engine's view of time.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
	// Sleep blocks until d has passed.
	Sleep(d time.Duration)
}

// Real is the wall clock.
type Real struct{}

// OrReal is c, or the real clock when c is nil (a zero Clock field).
func OrReal(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}

func (Real) Now() time.Time                         { return time.Now() }
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (Real) Sleep(d time.Duration)                  { time.Sleep(d) }

// Fake is a manual clock: time moves only when Advance or Set is called.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a fake clock standing at start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	at := f.now.Add(d)
	if d <= 0 {
		ch <- f.now
		return ch
	}
	f.waiters = append(f.waiters, waiter{at: at, ch: ch})
	return ch
}

func (f *Fake) Sleep(d time.Duration) { <-f.After(d) }

// Advance moves the clock forward by d, firing every timer that falls due, in order.
func (f *Fake) Advance(d time.Duration) { f.Set(f.Now().Add(d)) }

// Set moves the clock to t (never backwards), firing every timer that falls due.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	if t.Before(f.now) {
		f.mu.Unlock()
		return
	}
	f.now = t
	sort.SliceStable(f.waiters, func(i, j int) bool { return f.waiters[i].at.Before(f.waiters[j].at) })
	var due []waiter
	keep := f.waiters[:0]
	for _, w := range f.waiters {
		if !w.at.After(t) {
			due = append(due, w)
		} else {
			keep = append(keep, w)
		}
	}
	f.waiters = keep
	f.mu.Unlock()
	for _, w := range due {
		w.ch <- w.at
	}
}

// Waiters reports how many timers are pending; tests use it to wait until the code
// under test has armed its timers before advancing.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}
