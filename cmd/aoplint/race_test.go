//go:build race

package main

// raceEnabled: TestScripts and TestPreCommitHook skip under the race detector.
// They run aoplint as processes (each a race-built copy of this test binary,
// 0.1 s of CPU to start, several times slower to lint; pre-commit builds its
// own without -race anyway): .ci/run runs this package without -race too,
// where they run. The in-process tests (spec corpus, streaming) run in both.
const raceEnabled = true
