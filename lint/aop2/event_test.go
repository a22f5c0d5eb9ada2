package aop2

import (
	"strings"
	"testing"
)

// TestEventIndex holds eventIndex's switch to eventNames: each name its index,
// a name one edit away from one none.
func TestEventIndex(t *testing.T) {
	for i, e := range eventNames {
		if got := eventIndex(strings.Clone(e)); got != i {
			t.Errorf("eventIndex(%q) = %d, want %d", e, got, i)
		}
		for _, near := range []string{e[:len(e)-1], e + "S", strings.ToLower(e), "X" + e[1:]} {
			if got := eventIndex(near); got != -1 {
				t.Errorf("eventIndex(%q) = %d, want -1", near, got)
			}
		}
	}
	if eventIndex("") != -1 || eventKind("HEARTBEAT") != "EVENT:HEARTBEAT" || eventKind("X") != "EVENT:X" {
		t.Error("eventIndex of \"\" or eventKind")
	}
}
