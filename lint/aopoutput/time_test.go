package aopoutput

import (
	"testing"

	"github.com/aopkit/aopkit/lint/internal/isotime/isotimetest"
)

var isoSeeds = []string{
	"2025-01-06T08:08:33Z", "2025-01-06T08:08:33.1Z", "2025-01-06T08:08:33.123456789Z", "2025-01-06T08:08:33.1234567890Z",
	"2025-01-06t08:08:33z", "2025-01-06T08:08Z", "2025-01-06T08:08:33", "2025-01-06T08:08:33+01:00", "2025-01-06T08:08:33-0530",
	"2025-01-06T08:08:33,5Z", "2025-01-06T08:08:60Z", "2025-01-06T23:59:60Z", "2025-01-06T24:00:00Z", "2024-02-29T00:00:00Z",
	"2023-02-29T00:00:00Z", "2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
	"2025-01-06T08:08:33.Z", "2025-01-06 08:08:33Z", "2025-1-06T08:08:33Z", "", "Z",
}

// isoAgrees holds parseISO's fast path (isotime.ParseUTC) to parseISOSlow.
func isoAgrees(t *testing.T, s string) { isotimetest.UTCAgrees(t, s, parseISOSlow) }

func TestParseISOAgrees(t *testing.T) {
	for _, s := range isoSeeds {
		isoAgrees(t, s)
	}
}

func FuzzParseISO(f *testing.F) {
	for _, s := range isoSeeds {
		f.Add(s)
	}
	f.Fuzz(isoAgrees)
}
