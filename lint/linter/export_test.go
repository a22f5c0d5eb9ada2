package linter

import (
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// WithoutLinePoisoning turns the test build's line poisoning (poisonLines) off
// for one benchmark and back on when it ends: the poisoning is a check of the
// driver's ownership of lines, and its cost (about 5 % of a worker's CPU) is
// not aoplint's. AOPKIT_ARENA_POISON=1 keeps it on.
func WithoutLinePoisoning(b *testing.B) {
	if poisonUnits {
		return
	}
	old := poisonLines
	poisonLines = false
	b.Cleanup(func() { poisonLines = old })
}

// BuildUnit is the parallel stage for one line of a stream (parse, detection,
// single-message rules, schema), for the stage benchmarks: the message it made.
func BuildUnit(path string, index int, line []byte) *lint.Message {
	opts := &Options{}
	return build(path, opts, false, index, line, index+1, 1).msg
}

// Unit is the parallel stage's result for one line, for the stage benchmarks.
type Unit = unitOut

// BuildUnits runs the parallel stage over lines.
func BuildUnits(path string, lines [][]byte) []Unit {
	opts := &Options{}
	out := make([]Unit, len(lines))
	for i, l := range lines {
		out[i] = build(path, opts, false, i, l, i+1, 1)
	}
	return out
}

// ApplyUnits runs the ordered stage (bookkeeping and sequence rules) over units.
func ApplyUnits(path string, units []Unit) FileResult {
	s := newStream(path, Options{})
	for _, u := range units {
		s.apply(u)
	}
	s.finish()
	return s.result()
}

// RunRules runs the single-message rules of m's protocol and kind (the schema
// rules when schema is set, else the others), for the stage benchmarks: the
// number of diagnostics.
func RunRules(m *lint.Message, schema bool) int {
	rs := rulesFor(m.Protocol, m.Kind)
	list := rs.single
	if schema {
		list = rs.schema
	}
	var p lint.Pass
	n := 0
	for _, r := range list {
		p.Reset(r, m)
		safeRun(&p, r.Run)
		n += len(p.Diagnostics())
	}
	return n
}

// BuildUnitIn is BuildUnit with the trees in arena, by one builder per arena
// reused from line to line, as the driver's goroutines do.
func BuildUnitIn(arena *jsonread.Arena, path string, index int, line []byte) *lint.Message {
	if unitBuilder == nil || unitBuilder.arena != arena || unitBuilder.path != path {
		unitBuilder = newBuilder(arena, path, &Options{}, false)
	}
	return unitBuilder.build(index, line, index+1, 1).msg
}

var unitBuilder *builder
