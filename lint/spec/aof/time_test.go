package aof

import "testing"

func TestParseTime(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"2026-02-09T21:00:00.000Z": true, "2026-02-09T21:00:00Z": true, "2026-02-09T21:00Z": true,
		"2026-02-09T21:00:00+02:00": true, "2026-02-09T21:00:00": true, "2026-02-09T21:00:00.123456789Z": true,
		"2026-02-09": false, "soon": false, "22/11/2026 10:00:00": false, "2026-13-09T21:00:00Z": false,
		"2026-02-30T21:00:00Z": false, "2026-02-09T25:00:00Z": false, "": false,
	} {
		if _, _, ok := ParseTime(in); ok != want {
			t.Errorf("ParseTime(%q) ok = %v, want %v", in, ok, want)
		}
	}
}
