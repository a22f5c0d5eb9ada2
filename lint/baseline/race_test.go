//go:build race

package baseline

// raceEnabled: TestRoundTripLarge and TestWriteRefusesWhatLoadRefuses skip
// under the race detector. They write and read baselines of 50,000 findings
// and of over 64 MiB in one goroutine, with no unsafe code: nothing for the
// detector to find, and several times slower under it. .ci/run runs this
// package without -race too, where they run; the other tests run in both.
const raceEnabled = true
