package aop2

import "testing"

// FuzzParseISO: the byte-level parseISO returns exactly what time.Parse and the
// layouts return (parseISOLayouts): the same time.Time value, zone and verdict.
func FuzzParseISO(f *testing.F) {
	for _, s := range []string{
		"2026-02-26T12:37:01Z", "2026-02-26T12:37:01.123Z", "2026-02-26T12:37:01.1234567891234Z", "2026-02-26T12:37:01.Z",
		"2026-02-26T12:37:01,5Z", "2026-02-26T12:37:01+01:00", "2026-02-26T12:37:01-0530", "2026-02-26T12:37:01+01",
		"2026-02-26T12:37Z", "2026-02-26T12:37+01:00", "2026-02-26T12:37:01", "2026-02-26T12:37", "2026-02-26T12:37:01.5",
		"2026-02-29T12:37:01Z", "2024-02-29T12:37:01Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
		"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
		"2026-01-01T23:59:60Z", "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
		"2026-02-26T1:37:01Z", "2026-02-26 12:37:01Z", "22/11/2026 10:00", "2026-02-26T12:37:01z", "2026-02-26T12:37:01ZZ",
		"+026-02-26T12:37:01Z", "2026-02-26T12:37:0aZ", "2026-02-26T12:37:01.-1Z", "2026-02-26T12:37:01Z07:00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gz, gok := parseISO(s)
		want, wz, wok := parseISOLayouts(s)
		if len(s) < 16 || len(s) > 40 {
			wok, wz, want = false, false, got
			if gok {
				t.Fatalf("parseISO(%q) accepts a length it must refuse", s)
			}
		}
		same := got == want
		if _, _, fast := parseISOFast(s); !fast {
			// Both came from time.Parse, whose zones are made per call: the same
			// instant and zone, not the same pointer.
			gn, go_ := got.Zone()
			wn, wo := want.Zone()
			same = got.Equal(want) && gn == wn && go_ == wo
		}
		if gok != wok || gz != wz || !same {
			t.Fatalf("parseISO(%q) = %v %v %v, time.Parse: %v %v %v", s, got, gz, gok, want, wz, wok)
		}
	})
}

func BenchmarkParseISO(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		parseISO("2026-02-26T12:37:01Z")
	}
}

func BenchmarkParseISOLayouts(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		parseISOLayouts("2026-02-26T12:37:01Z")
	}
}
