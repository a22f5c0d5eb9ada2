// Package isotimetest holds what the tests of the protocols' date-time parsers
// share: the check of their isotime.ParseUTC fast path.
package isotimetest

import (
	"testing"
	"time"

	"github.com/aopkit/aopkit/lint/internal/isotime"
)

// Seeds are date-times of every form and near misses of them (ranges, leap
// days and seconds, hour 24, fractions, zones, separators).
var Seeds = []string{
	"2026-02-04T14:30:00Z", "2026-02-04T14:30:00.1Z", "2026-02-04T14:30:00.123456789Z", "2026-02-04T14:30:00.1234567891Z",
	"2026-02-04t14:30:00z", "2026-02-04T14:30Z", "2026-02-04T14:30:00", "2026-02-04T14:30:00+01:00", "2026-02-04T14:30:00-0530",
	"2026-02-04T14:30:00,5Z", "2026-02-04T14:30:60Z", "2026-02-04T23:59:60Z", "2026-02-04T24:00:00Z", "2024-02-29T00:00:00Z",
	"2023-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
	"2026-02-04T14:30:00.Z", "2026-02-04 14:30:00Z", "2026-2-04T14:30:00Z", "", "Z",
}

// UTCAgrees checks a parser that answers isotime.ParseUTC's form by ParseUTC
// and any other by slow: where ParseUTC answers, slow must give the same time
// (==: the same instant in UTC), with a zone, ok.
func UTCAgrees(t testing.TB, s string, slow func(string) (time.Time, bool, bool)) {
	t.Helper()
	want, ok := isotime.ParseUTC(s)
	if !ok {
		return // the parser answers by slow itself
	}
	if got, zone, ok := slow(s); got != want || !zone || !ok {
		t.Errorf("%q: isotime.ParseUTC %v; the parser's slow path %v (zone %v, ok %v)", s, want, got, zone, ok)
	}
}

// Fuzz runs UTCAgrees on the seeds (under plain go test too) and what the
// fuzzer makes of them.
func Fuzz(f *testing.F, slow func(string) (time.Time, bool, bool)) {
	for _, s := range Seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { UTCAgrees(t, s, slow) })
}
