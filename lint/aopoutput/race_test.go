//go:build race

package aopoutput

// raceEnabled: the prefilter tests skip under the race detector. They match
// 600k lines against regexps in one goroutine, with no unsafe code: nothing
// for the detector to find, and 8 times slower under it (34 s of CPU). .ci/run
// runs this package without -race too, where they run.
const raceEnabled = true
