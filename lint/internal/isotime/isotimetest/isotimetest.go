// Package isotimetest holds what the tests of the protocols' date-time parsers
// share: the check of their isotime.ParseUTC fast path.
package isotimetest

import (
	"testing"
	"time"

	"github.com/aopkit/aopkit/lint/internal/isotime"
)

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
