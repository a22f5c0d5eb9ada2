//go:build !race

package aopoutput

const raceEnabled = false
