package linter

import (
	"os"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// unitMem is the memory of the units a builder makes between two resets: their
// trees (arena), messages and line indexes. The driver resets it once every unit
// it holds has been through the ordered stage (serial: each line; parallel: each
// batch), so a line costs no allocation for them. What the ordered stage keeps
// longer it copies (heldRecord). Its block holds the units' bytes, reused too.
type unitMem struct {
	outs  []unitOut // a batch's results (parallel driver)
	arena *jsonread.Arena
	msgs  slabs[lint.Message]
	idx   slabs[lint.LineIndex]
	// block holds the units' lines back to back (add), the bytes their trees'
	// strings point into; emptied by reset, and let go there when a long line
	// grew it past maxBlockBytes.
	block []byte
}

// add appends line to the block and returns the block's copy of it. A copy
// handed out stays valid until reset even if a later add grows the block (the
// old array is let go, not overwritten).
func (um *unitMem) add(line []byte) []byte {
	start := len(um.block)
	um.block = append(um.block, line...)
	return um.block[start:len(um.block):len(um.block)]
}

// maxBlockBytes bounds the block a unitMem keeps across resets (a batch's lines
// are about batchBytes; a longer line's block is let go).
const maxBlockBytes = 2 * batchBytes

func newUnitMem() *unitMem { return &unitMem{arena: new(jsonread.Arena)} }

// units returns room for n results, zero (the ordered stage clears each one it
// applies).
func (um *unitMem) units(n int) []unitOut {
	if cap(um.outs) < n {
		um.outs = make([]unitOut, n)
	}
	return um.outs[:n]
}

// reset takes back every unit made since the last reset, and the lines.
func (um *unitMem) reset() {
	if cap(um.block) > maxBlockBytes {
		um.block = nil
	}
	um.block = um.block[:0]
	um.resetUnits()
}

// resetUnits takes back every unit made since the last reset (their trees,
// messages and line indexes), keeping the lines of the block.
func (um *unitMem) resetUnits() {
	um.arena.Reset()
	if poisonUnits {
		um.msgs.reset(func(m *lint.Message) { *m = poisonedMessage })
		um.idx.reset(func(li *lint.LineIndex) { li.Reset(nil, 1<<30, 1<<30) })
		return
	}
	// Messages point to trees and lines: cleared, so that a reused slab pins
	// none. Line indexes hold no pointer worth clearing, and keep their memory.
	um.msgs.reset(func(m *lint.Message) { *m = lint.Message{} })
	um.idx.reset(nil)
}

// slabs hands out elements cut from slabs of slabSize, reused after reset.
type slabs[T any] struct {
	list [][]T
	cur  int // the slab being cut
	off  int // elements of list[cur] already cut
}

const slabSize = 64

func (s *slabs[T]) next() *T {
	if s.cur < len(s.list) && s.off == slabSize {
		s.cur, s.off = s.cur+1, 0
	}
	if s.cur == len(s.list) {
		s.list = append(s.list, make([]T, slabSize))
	}
	e := &s.list[s.cur][s.off]
	s.off++
	return e
}

// reset makes every element cut reusable, after passing it to clean (if not nil).
func (s *slabs[T]) reset(clean func(*T)) {
	if clean != nil {
		for i := 0; i <= s.cur && i < len(s.list); i++ {
			n := slabSize
			if i == s.cur {
				n = s.off
			}
			for j := range s.list[i][:n] {
				clean(&s.list[i][j])
			}
		}
	}
	s.cur, s.off = 0, 0
}

// poisonUnits, set by AOPKIT_ARENA_POISON=1 (as jsonread's arenas are), fills the
// messages and line indexes a unitMem takes back with values no input makes: a
// message used after its unit was done with then shows in the output (a test of
// the driver's ownership, not a feature).
var poisonUnits = os.Getenv("AOPKIT_ARENA_POISON") != ""

// poisonLines makes poisonLine overwrite every line's bytes once the line is
// applied: always in a test binary (every test and golden of every package that
// lints runs with it, so a string kept from a line without a copy changes
// their results), and with AOPKIT_ARENA_POISON=1.
var poisonLines = poisonUnits || testing.Testing()

// poisonLine overwrites a line's bytes, done with, when poisonLines is set.
func poisonLine(b []byte) {
	if !poisonLines {
		return
	}
	for i := range b {
		b[i] = poisonByte
	}
}

// poisonByte is what a poisoned line holds: a byte no valid UTF-8 text holds,
// so that a string kept from it shows as broken.
const poisonByte = 0xFE

const poisonedText = "\x00poisoned by linter.unitMem.reset"

var poisonedMessage = lint.Message{Path: poisonedText, Protocol: poisonedText, Kind: poisonedText, Dialect: poisonedText,
	Raw: []byte(poisonedText), From: poisonedText, Session: poisonedText, Stream: poisonedText, Index: 1 << 30,
	Pos: &lint.LineIndex{BaseLine: 1 << 30, BaseCol: 1 << 30, Flat: true}}

// newMessage returns a zero message from the builder's memory (fresh memory
// without one).
func (b *builder) newMessage() *lint.Message {
	if b.mem == nil {
		return new(lint.Message)
	}
	return b.mem.msgs.next()
}

// newIndex returns a line index from the builder's memory, to be set with Reset,
// ShiftTo or a Flat assignment.
func (b *builder) newIndex() *lint.LineIndex {
	if b.mem == nil {
		return new(lint.LineIndex)
	}
	return b.mem.idx.next()
}
