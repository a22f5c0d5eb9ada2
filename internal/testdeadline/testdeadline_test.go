package testdeadline

import (
	"testing"
	"time"
)

type fixed struct {
	d  time.Time
	ok bool
}

func (f fixed) Deadline() (time.Time, bool) { return f.d, f.ok }

// Without a deadline Near never fires; with one already passed it fires at once.
func TestNear(t *testing.T) {
	if ch := Near(fixed{}); ch != nil {
		t.Error("no deadline: want a nil channel")
	}
	<-Near(fixed{d: time.Now().Add(-time.Second), ok: true}) // must not block
	if _, ok := t.Deadline(); ok {
		select {
		case <-Near(t):
			t.Error("fired long before the test binary's deadline")
		default:
		}
	}
}
