//go:build race

package jsonread

// raceEnabled: the race detector makes sync.Pool drop items, so allocation
// counts are not the program's own.
const raceEnabled = true
