package linter

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/aopkit/aopkit/lint"
)

// TestLineBuffers: a unit's bytes are reused for the next unit and poisoned in
// between (the test build always poisons: poisonLines); a block grown past
// maxBlockBytes by a long line is let go at the next reset.
func TestLineBuffers(t *testing.T) {
	if !poisonLines {
		t.Fatal("the test build must poison every reused line (poisonLines)")
	}
	um := newUnitMem()
	first := um.add([]byte("first line"))
	poisonLine(first)
	if want := bytes.Repeat([]byte{poisonByte}, len("first line")); !bytes.Equal(first, want) {
		t.Errorf("a line done with holds %q, want poison", first)
	}
	um.reset()
	second := um.add([]byte("second"))
	if &second[0] != &first[0] {
		t.Error("the next line did not reuse the buffer")
	}
	// A batch: lines back to back in one block, each its own slice of it.
	third := um.add([]byte("third!"))
	if string(second) != "second" || string(third) != "third!" || &third[0] != &um.block[len("second")] {
		t.Errorf("a batch's lines: %q %q", second, third)
	}
	if cap(second) != len(second) {
		t.Error("a line's slice can grow into the next line")
	}
	um.reset()
	um.add(make([]byte, maxBlockBytes+1))
	um.reset()
	if cap(um.block) != 0 {
		t.Errorf("the block keeps %d bytes after a long line, want it let go (bound %d)", cap(um.block), maxBlockBytes)
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
