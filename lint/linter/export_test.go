package linter

import "github.com/aopkit/aopkit/lint"

// BuildUnit is the parallel stage for one line of a stream (parse, detection,
// single-message rules, schema), for the stage benchmarks: the message it made.
func BuildUnit(path string, index int, line []byte) *lint.Message {
	opts := &Options{}
	return build(path, opts, false, index, line, index+1, 1).msg
}
