package aof

import (
	"testing"
	"time"
)

// slowDateTime is parseDateTime as it was: time.Parse of the normalised string
// for every form.
func slowDateTime(s string) (time.Time, zoneKind, bool) {
	m, ok := datetimeForm.Match(s)
	if !ok {
		return time.Time{}, 0, false
	}
	return parseDateTimeSlow(m)
}

func agree(t *testing.T, s string) {
	got, gz, gok := parseDateTime(s)
	want, wz, wok := slowDateTime(s)
	if gok != wok || gz != wz || !got.Equal(want) || got.Location().String() != want.Location().String() {
		t.Errorf("parseDateTime(%q) = %v, %v, %v; time.Parse says %v, %v, %v", s, got, gz, gok, want, wz, wok)
	}
}

var dateTimeSeeds = []string{
	"2026-02-04T14:30:00Z", "2026-02-04T14:30:00.123Z", "2026-02-04t14:30z", "2026-02-04T14:30", "2024-02-29T00:00:00Z",
	"2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2000-02-29T23:59:59.999999999Z", "2026-04-31T10:00:00Z",
	"2026-13-01T10:00:00Z", "2026-00-01T10:00:00Z", "2026-01-00T10:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
	"2026-01-01T23:59:60Z", "2026-01-01T10:00:00,5Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.1", "2026-01-01T10:00:00+02:00",
	"2026-01-01T10:00:00-0530", "2026-01-01T10:00:00+25:00", "2026-01-01T10:00:00+02", "2026-01-01 10:00:00Z", "nope", "",
}

// TestParseDateTimeAgrees: the digit path answers as time.Parse does.
func TestParseDateTimeAgrees(t *testing.T) {
	for _, s := range dateTimeSeeds {
		agree(t, s)
	}
}

func FuzzParseDateTime(f *testing.F) {
	for _, s := range dateTimeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { agree(t, s) })
}
