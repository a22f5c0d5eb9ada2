//go:build !race

package jsonread

const raceEnabled = false
