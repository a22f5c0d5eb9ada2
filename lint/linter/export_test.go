package linter

import "github.com/aopkit/aopkit/lint"

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
