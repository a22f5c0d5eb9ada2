package aop2

import "testing"

// TestValidTimestamp: the engine's AOP2-TIME-001 is aoplint's (lint/spec/aop2):
// an offset, a lower-case t or z and a missing zone (only a lint warning) are
// no violation; what the contract's reader refuses is.
func TestValidTimestamp(t *testing.T) {
	for s, want := range map[string]bool{
		"2026-02-26T12:37:01Z": true, "2026-02-26T13:37:01+01:00": true, "2026-02-26t12:37:01z": true,
		"2026-02-26T12:37:01": true, "2026-02-26T12:37Z": true,
		"22/11/2026 10:00": false, "2026-02-26T24:00:00Z": false, "2026-02-26T12:37:60Z": false, "": false,
	} {
		if got := validTimestamp(s); got != want {
			t.Errorf("validTimestamp(%q) = %v, want %v", s, got, want)
		}
	}
}
