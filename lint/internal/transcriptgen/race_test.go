//go:build race

package transcriptgen

// raceEnabled: the generator's own tests (gen_test.go) skip under the race
// detector. The generator runs in one goroutine with no unsafe code: nothing for
// the detector to find, and several times slower under it. .ci/run runs this
// package without -race too, where they run; lint_test.go, which lints what it
// writes (in parallel), runs in both.
const raceEnabled = true
