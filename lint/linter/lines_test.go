package linter

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/aopkit/aopkit/lint"
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

// TestStreamOwnsDiagnostics: the strings of a diagnostic that point into the
// line being applied (a rule may report a string of the tree as its pointer or
// text) are copied before the line's bytes are reused.
func TestStreamOwnsDiagnostics(t *testing.T) {
	s := newStream("p", Options{})
	line := []byte(`{"ptr":"/x","msg":"kept text"}`)
	sub := func(s string) string {
		i := bytes.Index(line, []byte(s))
		return unsafe.String(&line[i], len(s))
	}
	s.line = line
	s.add(lint.Diagnostic{Rule: "R", Pointer: sub("/x"), Message: sub("kept text"),
		Related: []lint.Related{{Pointer: sub("/x"), Message: sub("kept text")}}})
	s.line = nil
	poisonLine(line)
	d := s.diags[0]
	if d.Pointer != "/x" || d.Message != "kept text" || d.Related[0].Pointer != "/x" || d.Related[0].Message != "kept text" {
		t.Errorf("the diagnostic kept strings of the line: %+v", d)
	}
}
