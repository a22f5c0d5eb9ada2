//go:build race

package main

// raceEnabled: under the race detector every process is several times slower, so the
// self-test stretches the scenarios' clocks (--timeout-scale).
const raceEnabled = true
