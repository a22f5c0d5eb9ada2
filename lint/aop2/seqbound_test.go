package aop2_test

import (
	"fmt"
	"testing"
	"time"
)

// TestHeartbeatBoundaries: every silence belongs to exactly one heartbeat rule.
// Around each boundary (SEQ-006's "a beat was missed", the bare limit interval ×
// max_missed_beats, and SEQ-005's limit plus the clock tolerance) a gap is judged
// by one rule or, below SEQ-006's, by none: never by both, never by neither once
// a beat was missed (a gap just past the bare limit was left by SEQ-006 to
// SEQ-005, which tolerated it). Interval 1 s; the harness clock's tolerance is
// a fifth of it, 200 ms.
func TestHeartbeatBoundaries(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	task := func(maxMissed int) map[string]any {
		m := taskMsg(1, 3600)
		m["execution_policy"].(map[string]any)["heartbeat"].(map[string]any)["max_missed_beats"] = maxMissed
		return m
	}
	type shape func(gap time.Duration, maxMissed int) []rec
	// between two HEARTBEATs: the first at 1 s, the next gap later, the RESPONSE soon after.
	between := func(gap time.Duration, maxMissed int) []rec {
		b := time.Second + gap
		return []rec{{0, task(maxMissed)}, {time.Second, beatMsg(time.Second, 10)}, {b, beatMsg(b, 20)}, {b + ms(300), respMsg(b + ms(300))}}
	}
	// the first HEARTBEAT gap after the TASK.
	first := func(gap time.Duration, maxMissed int) []rec {
		return []rec{{0, task(maxMissed)}, {gap, beatMsg(gap, 10)}, {gap + ms(300), respMsg(gap + ms(300))}}
	}
	// the RESPONSE gap after the last HEARTBEAT.
	response := func(gap time.Duration, maxMissed int) []rec {
		return []rec{{0, task(maxMissed)}, {time.Second, beatMsg(time.Second, 10)}, {time.Second + gap, respMsg(time.Second + gap)}}
	}
	for _, tt := range []struct {
		shape     string
		f         shape
		maxMissed int
		gap       int    // ms
		want      string // the one rule that judges the gap, "" for none
	}{
		// Between HEARTBEATs, max 2: SEQ-006 past 1.1 s + 0.5 s + 0.2 s = 1.8 s;
		// the limit 2 s; SEQ-005 past 2 s + 0.2 s.
		{"between", between, 2, 1000, ""},
		{"between", between, 2, 1800, ""},
		{"between", between, 2, 1801, "AOP2-SEQ-006"},
		{"between", between, 2, 1999, "AOP2-SEQ-006"},
		{"between", between, 2, 2000, "AOP2-SEQ-006"},
		{"between", between, 2, 2001, "AOP2-SEQ-006"},
		{"between", between, 2, 2005, "AOP2-SEQ-006"},
		{"between", between, 2, 2100, "AOP2-SEQ-006"},
		{"between", between, 2, 2200, "AOP2-SEQ-006"},
		{"between", between, 2, 2201, "AOP2-SEQ-005"},
		{"between", between, 2, 3000, "AOP2-SEQ-005"},
		// The first HEARTBEAT, max 3: SEQ-006 past two intervals + 0.2 s; the
		// limit 3 s; SEQ-005 past 3.2 s.
		{"first", first, 3, 2200, ""},
		{"first", first, 3, 2201, "AOP2-SEQ-006"},
		{"first", first, 3, 2999, "AOP2-SEQ-006"},
		{"first", first, 3, 3000, "AOP2-SEQ-006"},
		{"first", first, 3, 3001, "AOP2-SEQ-006"},
		{"first", first, 3, 3200, "AOP2-SEQ-006"},
		{"first", first, 3, 3201, "AOP2-SEQ-005"},
		// max 2: both boundaries at 2.2 s.
		{"first", first, 2, 2000, ""},
		{"first", first, 2, 2200, ""},
		{"first", first, 2, 2201, "AOP2-SEQ-005"},
		// The RESPONSE after the last HEARTBEAT, max 2: as between HEARTBEATs.
		{"response", response, 2, 1800, ""},
		{"response", response, 2, 1801, "AOP2-SEQ-006"},
		{"response", response, 2, 2000, "AOP2-SEQ-006"},
		{"response", response, 2, 2005, "AOP2-SEQ-006"},
		{"response", response, 2, 2200, "AOP2-SEQ-006"},
		{"response", response, 2, 2201, "AOP2-SEQ-005"},
	} {
		t.Run(fmt.Sprintf("%s/max%d/%dms", tt.shape, tt.maxMissed, tt.gap), func(t *testing.T) {
			ds := lintText(t, transcript(tt.f(ms(tt.gap), tt.maxMissed)))
			for _, r := range []string{"AOP2-SEQ-005", "AOP2-SEQ-006"} {
				if got := has(ds, r); got != (r == tt.want) {
					t.Errorf("%s: %v, want %v (the gap's rule: %q): %v", r, got, !got, tt.want, ds)
				}
			}
		})
	}
}

// TestHeartbeatLateMeasured: an AOP2-SEQ-006 finding carries its measurement
// (how far behind its slot the beat came, or how long the first one waited) and
// the limit it broke, which aopconform weighs a FLAKY verdict by.
func TestHeartbeatLateMeasured(t *testing.T) {
	t.Parallel()
	task := taskMsg(1, 3600) // interval 1 s, max_missed_beats 3
	for _, tt := range []struct {
		name            string
		recs            []rec
		measured, limit time.Duration
	}{
		// The schedule starts at 1 s; the next beat is due by 1.1 s after it and
		// may be 0.5 s + 0.2 s behind: at 3 s it is 0.9 s behind.
		{"between beats", []rec{{0, task}, {time.Second, beatMsg(time.Second, 10)}, {3 * time.Second, beatMsg(3*time.Second, 20)}, {3300 * time.Millisecond, respMsg(3300 * time.Millisecond)}},
			900 * time.Millisecond, 700 * time.Millisecond},
		{"first beat", []rec{{0, task}, {2500 * time.Millisecond, beatMsg(2500*time.Millisecond, 10)}, {2800 * time.Millisecond, respMsg(2800 * time.Millisecond)}},
			2500 * time.Millisecond, 2200 * time.Millisecond},
	} {
		var got []string
		found := false
		for _, d := range lintAll(transcript(tt.recs)) {
			if d.Rule == "AOP2-SEQ-006" {
				found = true
				if d.Measured != tt.measured || d.Limit != tt.limit {
					got = append(got, fmt.Sprintf("measured %s limit %s", d.Measured, d.Limit))
				}
			}
		}
		if !found || len(got) > 0 {
			t.Errorf("%s: found %v, %v; want measured %s, limit %s", tt.name, found, got, tt.measured, tt.limit)
		}
	}
}
