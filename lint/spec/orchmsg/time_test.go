package orchmsg

import (
	"testing"
	"time"

	"github.com/aopkit/aopkit/lint/internal/isotime"
)

func TestParseTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		ok   bool
		zone isotime.Zone
		want string
	}{
		{"2026-02-04T14:30:00Z", true, isotime.ZoneUTC, "2026-02-04T14:30:00Z"},
		{"2026-02-04T14:30:00.123Z", true, isotime.ZoneUTC, "2026-02-04T14:30:00.123Z"},
		{"2026-02-04T16:30:00+02:00", true, isotime.ZoneOffset, "2026-02-04T14:30:00Z"},
		{"2026-02-04T14:30", true, isotime.ZoneNone, "2026-02-04T14:30:00Z"},
		{"2026-02-04T14:30:00", true, isotime.ZoneNone, "2026-02-04T14:30:00Z"},
		{"2026-02-30T14:30:00Z", false, isotime.ZoneNone, ""},
		{"2026-13-01T14:30:00Z", false, isotime.ZoneNone, ""},
		{"2026-02-04 14:30:00Z", false, isotime.ZoneNone, ""},
		{"04/02/2026 14:30", false, isotime.ZoneNone, ""},
		{"", false, isotime.ZoneNone, ""},
		{"2026-02-04T15:30:00+0100", true, isotime.ZoneOffset, "2026-02-04T14:30:00Z"},
		{"2026-02-04T15:30:00+01", true, isotime.ZoneOffset, "2026-02-04T14:30:00Z"},
		{"2026-02-04T09:00:00-05:30", true, isotime.ZoneOffset, "2026-02-04T14:30:00Z"},
		{"2026-02-04T14:30:00,5Z", true, isotime.ZoneUTC, "2026-02-04T14:30:00.5Z"},
		{"2026-02-04t14:30:00z", true, isotime.ZoneUTC, "2026-02-04T14:30:00Z"},
		{"2026-02-04T14:30:00.Z", false, isotime.ZoneNone, ""},
		{"2026-02-04T14:30:00.1234567891Z", true, isotime.ZoneUTC, "2026-02-04T14:30:00.123456789Z"},
		{"2026-02-04T24:00:00Z", true, isotime.ZoneUTC, "2026-02-05T00:00:00Z"},
		{"2026-02-04T24:00:00.000+01:00", true, isotime.ZoneOffset, "2026-02-04T23:00:00Z"},
		{"2026-02-04T24:30:00Z", false, isotime.ZoneNone, ""},
		{"2026-02-04T12:30:60Z", false, isotime.ZoneNone, ""},
		{"2026-02-04T23:59:60Z", false, isotime.ZoneNone, ""},
		{"2026-02-04T14:30:00+02:60", false, isotime.ZoneNone, ""},
		{"2026-02-04T14:30:00+01:0", false, isotime.ZoneNone, ""},
		{"2026-02-04T14:30:00Zjunk", false, isotime.ZoneNone, ""},
		{"2026-02-04T14:3", false, isotime.ZoneNone, ""},
		{"...", false, isotime.ZoneNone, ""},
	} {
		got, zone, ok := ParseTime(tc.in)
		if ok != tc.ok || zone != tc.zone {
			t.Errorf("ParseTime(%q) ok=%v zone=%v, want ok=%v zone=%v", tc.in, ok, zone, tc.ok, tc.zone)
			continue
		}
		if ok && got.UTC().Format(time.RFC3339Nano) != tc.want {
			t.Errorf("ParseTime(%q) = %s, want %s", tc.in, got.UTC().Format(time.RFC3339Nano), tc.want)
		}
	}
}
