package aop2

import (
	"testing"
	"time"
)

func f(v float64) *float64 { return &v }

func TestEffectiveTimeout(t *testing.T) {
	for _, tc := range []struct {
		gr, ep *float64
		want   time.Duration
		from   string
	}{
		{f(45), f(60), 45 * time.Second, FromGuardRails},
		{nil, f(60), 60 * time.Second, FromExecutionPolicy},
		{f(0.5), nil, 500 * time.Millisecond, FromGuardRails},
		{nil, nil, 0, ""},
		{f(0), f(60), 0, ""}, // guard_rails is set: it wins, and 0 is no timeout
		{f(-1), nil, 0, ""},
	} {
		if d, from := EffectiveTimeout(tc.gr, tc.ep); d != tc.want || from != tc.from {
			t.Errorf("EffectiveTimeout(%v, %v) = %s %q, want %s %q", tc.gr, tc.ep, d, from, tc.want, tc.from)
		}
	}
}

func TestHeartbeatDefaults(t *testing.T) {
	if iv, n := Heartbeat(nil, nil); iv != 120*time.Second || n != 3 {
		t.Errorf("defaults %s × %d", iv, n)
	}
	if iv, n := Heartbeat(f(0), f(0.5)); iv != 120*time.Second || n != 3 {
		t.Errorf("out of range: %s × %d, want the defaults", iv, n)
	}
	if iv, n := Heartbeat(f(1.5), f(2)); iv != 1500*time.Millisecond || n != 2 {
		t.Errorf("%s × %d", iv, n)
	}
}

// TestHeartbeatFailedBoundary: HeartbeatFailureAfter is the longest silence that
// is no failure, at every scale; the tolerance is a fifth of the stretched
// interval, at most HarnessSlack.
func TestHeartbeatFailedBoundary(t *testing.T) {
	for _, tc := range []struct {
		iv    time.Duration
		n     int
		scale float64
		after time.Duration
	}{
		{time.Second, 2, 1, 2200 * time.Millisecond},
		{time.Second, 2, 3, 6500 * time.Millisecond},
		{4 * time.Second, 3, 1, 12500 * time.Millisecond},
		{120 * time.Second, 3, 0, 360*time.Second + HarnessSlack}, // scale ≤ 0 is 1
	} {
		after := HeartbeatFailureAfter(tc.iv, tc.n, tc.scale)
		if after != tc.after {
			t.Errorf("%s × %d at scale %g: failure after %s, want %s", tc.iv, tc.n, tc.scale, after, tc.after)
		}
		if HeartbeatFailed(after, tc.iv, tc.n, tc.scale, true) || !HeartbeatFailed(after+time.Millisecond, tc.iv, tc.n, tc.scale, true) {
			t.Errorf("%s × %d at scale %g: the boundary is not %s", tc.iv, tc.n, tc.scale, after)
		}
	}
	if HeartbeatFailed(3*time.Second+900*time.Millisecond, time.Second, 3, 1, false) != false {
		t.Error("message clock: the tolerance is a second")
	}
}

func TestProgressAndSchedule(t *testing.T) {
	if !ProgressTooSoon(29*time.Second, true) || ProgressTooSoon(29600*time.Millisecond, true) || ProgressTooSoon(29100*time.Millisecond, false) {
		t.Error("ProgressTooSoon tolerance")
	}
	if HeartbeatDue(2, time.Second, 2) != 4400*time.Millisecond {
		t.Errorf("HeartbeatDue = %s", HeartbeatDue(2, time.Second, 2))
	}
	if HeartbeatBehind(700*time.Millisecond, time.Second, 1, true) || !HeartbeatBehind(701*time.Millisecond, time.Second, 1, true) {
		t.Error("HeartbeatBehind: half an interval plus a fifth")
	}
	if FirstHeartbeatLate(2200*time.Millisecond, time.Second, 1, true) || !FirstHeartbeatLate(2201*time.Millisecond, time.Second, 1, true) {
		t.Error("FirstHeartbeatLate: two intervals plus a fifth")
	}
}

func TestEffectiveAccess(t *testing.T) {
	for _, tc := range [][3]string{
		{"FULL", "RESTRICTED", "RESTRICTED"}, {"NONE", "FULL", "NONE"}, {"RESTRICTED", "", "RESTRICTED"},
		{"", "NONE", "NONE"}, {"", "", ""}, {"bogus", "FULL", "FULL"},
	} {
		if got := EffectiveNetwork(tc[0], tc[1]); got != tc[2] {
			t.Errorf("EffectiveNetwork(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
	if !NetworkWithin("RESTRICTED", "FULL") || NetworkWithin("FULL", "RESTRICTED") || !NetworkWithin("", "NONE") || !NetworkWithin("FULL", "") {
		t.Error("NetworkWithin")
	}
	no := false
	if fs := EffectiveFilesystem(&no, []string{"/w"}, []string{"/w"}); fs.Allowed || len(fs.Write) != 0 {
		t.Errorf("no capability: %+v", fs)
	}
	if fs := EffectiveFilesystem(nil, []string{"/w"}, nil); !fs.Allowed || len(fs.Read) != 1 || fs.Write != nil {
		t.Errorf("capability not stated: %+v", fs)
	}
}

func TestPathsWithin(t *testing.T) {
	if !PathsWithin([]string{"/w/src", "/w"}, []string{"/w"}) || PathsWithin([]string{"/wx"}, []string{"/w"}) ||
		PathsWithin([]string{"/w/../etc"}, []string{"/w"}) || !PathsWithin([]string{"/etc"}, nil) || PathsWithin([]string{"/w"}, []string{}) {
		t.Error("PathsWithin")
	}
}

func TestV1(t *testing.T) {
	if !LooksLikeV1Prompt("# AOP TASK TASK-001\n\n## Objective\n\nx\n") || !LooksLikeV1Prompt("intro\n# Task\n") {
		t.Error("a v1 prompt is not recognised")
	}
	for _, s := range []string{"please refactor module x", `{"task":"x"}`, "# notes\nnothing here", ""} {
		if LooksLikeV1Prompt(s) {
			t.Errorf("%q taken for a v1 prompt", s)
		}
	}
	for line, want := range map[string]string{"STATUS: SUCCESS": "SUCCESS", "  status: partial_success ": "PARTIAL_SUCCESS", "**STATUS:** FAILURE": "FAILURE", V1StatusLine("ABORTED"): "ABORTED"} {
		if got, ok := V1Status(line); !ok || got != want {
			t.Errorf("V1Status(%q) = %q %v, want %q", line, got, ok, want)
		}
	}
	for _, line := range []string{"STATUS: DONE", "STATUS", "the STATUS: SUCCESS", "", "SUCCESS"} {
		if got, ok := V1Status(line); ok {
			t.Errorf("V1Status(%q) = %q, want no status", line, got)
		}
	}
}

// FuzzV1 feeds arbitrary text to the v1 readers: they never panic, and a status
// line they accept renders back to the same signal.
func FuzzV1(f *testing.F) {
	for _, s := range []string{"STATUS: SUCCESS", "# AOP TASK T\n## Objective\nx", "**status:** failure", "STATUS:", "\x00#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		LooksLikeV1Prompt(s)
		if sig, ok := V1Status(s); ok {
			if again, ok2 := V1Status(V1StatusLine(sig)); !ok2 || again != sig {
				t.Errorf("V1Status(%q) = %q, but its line %q reads %q", s, sig, V1StatusLine(sig), again)
			}
		}
	})
}
