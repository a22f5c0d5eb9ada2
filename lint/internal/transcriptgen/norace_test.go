//go:build !race

package transcriptgen

const raceEnabled = false
