package seqgroup

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// TestNames: every string Own returns equals its argument and shares none of
// its bytes (the caller's line is reused); a long string seen before is the
// same copy (interned), however many others came between; the map holds long
// strings only, at most max of them.
func TestNames(t *testing.T) {
	var n Names
	const max = 16
	line := make([]byte, 0, 4096)
	lend := func(s string) string { // s in a reused buffer, as a message's strings are
		line = append(line[:0], s...)
		return unsafe.String(unsafe.SliceData(line), len(line))
	}
	firstLong := map[string]string{}
	for i := 0; i < 400; i++ {
		short := fmt.Sprintf("TASK-%03d", i%40)
		long := fmt.Sprintf("%s-%03d", strings.Repeat("x", MaxCopied), i%10)
		for _, s := range []string{short, long} {
			got := n.Own(lend(s), max)
			copy(line[:cap(line)], strings.Repeat("!", cap(line))) // the line is read into again
			if got != s {
				t.Fatalf("Own(%q) = %q", s, got)
			}
			if len(s) > MaxCopied {
				if first, ok := firstLong[s]; ok && unsafe.StringData(first) != unsafe.StringData(got) {
					t.Fatalf("%q copied again", s)
				}
				firstLong[s] = got
			}
		}
		if n.Len() > max || n.Len() > 10 {
			t.Fatalf("the map holds %d strings", n.Len())
		}
	}
	for s, got := range firstLong {
		if got != s {
			t.Fatalf("a copy changed: %q, want %q", got, s)
		}
	}
	if n.Own("", max) != "" {
		t.Fatal("Own of the empty string")
	}
}
