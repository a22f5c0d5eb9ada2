package linter

import (
	"bytes"
	"testing"
)

// TestLineBuffers: a unit's bytes are reused for the next unit and poisoned in
// between (the test build always poisons: poisonLines), unless they were given
// away, which leaves them intact for whoever kept strings of them.
func TestLineBuffers(t *testing.T) {
	if !poisonLines {
		t.Fatal("the test build must poison every reused line (poisonLines)")
	}
	um := newUnitMem()
	first := um.line(0, []byte("first line"))
	um.done(0, false)
	if want := bytes.Repeat([]byte{poisonByte}, len("first line")); !bytes.Equal(first, want) {
		t.Errorf("a line done with holds %q, want poison", first)
	}
	second := um.line(0, []byte("second"))
	if &second[0] != &first[0] {
		t.Error("the next line did not reuse the buffer")
	}
	um.done(0, true)
	third := um.line(0, []byte("third!"))
	if string(second) != "second" || &third[0] == &second[0] {
		t.Errorf("a line given away was reused or poisoned: %q", second)
	}
	um.done(0, false)
	long := um.line(1, make([]byte, maxLineBytes))
	um.done(1, false)
	if um.lines[1] != nil || long[0] != 0 {
		t.Error("the lines' buffers hold more than maxLineBytes")
	}
	if um.linesCap != cap(um.lines[0]) {
		t.Errorf("linesCap %d, want %d", um.linesCap, cap(um.lines[0]))
	}
}
