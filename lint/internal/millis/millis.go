// Package millis turns a protocol's timeout in milliseconds (a JSON number)
// into a Duration without overflowing: the orchmsg and aos sequence rules and
// lint/spec/orchmsg's deadlines share it.
package millis

import (
	"math"
	"time"
)

// Duration is ms (not negative) milliseconds as a Duration; from 10^12 ms on,
// the longest Duration (over 292 years), where the product could overflow.
func Duration(ms float64) time.Duration {
	if ms >= 1e12 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms * float64(time.Millisecond))
}
