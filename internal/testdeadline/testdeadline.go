// Package testdeadline gives a test that guards against a hang a timer that a
// slow machine never trips: it fires shortly before the test binary's own
// -timeout (testing.T.Deadline), so a hang fails with the test's own message
// (what hung) instead of go test's panic, while work that is merely slow on a
// loaded machine (a minute, ten) is never failed for it. A wall-clock limit of
// its own (time.After(time.Minute)) is a timed assertion: it fails correct code
// on a saturated CI machine.
package testdeadline

import "time"

// T is what Near needs of a *testing.T.
type T interface {
	Deadline() (time.Time, bool)
}

// Near returns a channel that receives shortly before t's deadline: 30 s
// before it, or a tenth of the time left when that is less. Without a deadline
// (go test -timeout 0) it is nil and never receives.
func Near(t T) <-chan time.Time {
	d, ok := t.Deadline()
	if !ok {
		return nil
	}
	left := time.Until(d)
	return time.After(left - min(30*time.Second, left/10))
}
