package isotime

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The regexps the rules used before: the oracle of Match.
var (
	guideRe = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$`)
	aosRe   = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$`)
)

var forms = []struct {
	form Form
	re   *regexp.Regexp
}{{Form{Seps: "Tt", MaxFrac: 9}, guideRe}, {Form{Seps: "T "}, aosRe}}

func agree(t *testing.T, s string) {
	t.Helper()
	for _, f := range forms {
		want := f.re.FindStringSubmatch(s)
		got, ok := f.form.Match(s)
		if ok != (want != nil) {
			t.Fatalf("%+v.Match(%q) ok=%v, regexp %q", f.form, s, ok, want)
		}
		if !ok {
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%+v.Match(%q)[%d] = %q, regexp %q", f.form, s, i, got[i], want[i])
			}
		}
	}
}

var seeds = []string{
	"2026-02-05T10:30:00Z", "2026-02-05t10:30:00z", "2026-02-05 10:30:00Z", "2026-02-05T10:30", "2026-02-05T10:30Z",
	"2026-02-05T10:30:00.123456789Z", "2026-02-05T10:30:00.1234567890Z", "2026-02-05T10:30:00,5+01:00",
	"2026-02-05T10:30:00+0100", "2026-02-05T10:30:00+01", "2026-02-05T10:30:00+1", "2026-02-05T10:30:00+01:0",
	"2026-02-05T10:30:00+010", "2026-02-05T10:30:00-01:00", "2026-02-05T10:30:00.Z", "2026-02-05T10:30:0",
	"2026-02-05T10:30:", "2026-02-05T10:30.5", "2026-02-05T10:30+01:00", "2026-02-05", "", "2026-02-05T10:30:00Zx",
	"2026-02-05T10:30:00ZZ", "2026-2-05T10:30:00Z", "2026-02-05X10:30:00Z", "٢٠٢٦-02-05T10:30:00Z", "2026-02-05T10:30:00.١Z",
	"2026-02-05T10:30:00+01:00:00", "2026-02-05T10:30:00.12345678901234567890", "2026-02-05T10:30:00.", "2026-02-05T10:30:00,",
}

func FuzzMatch(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(agree)
}

// parseUTCAgrees: where ParseUTC answers, time.Parse(time.RFC3339Nano) gives the
// same time.Time (== compares the wall clock, the monotonic part and the
// location); the forms it is for, it answers. ParseRFC3339 answers as
// time.Parse does, everywhere.
func parseUTCAgrees(t *testing.T, s string) {
	t.Helper()
	got, ok := ParseUTC(s)
	want, err := time.Parse(time.RFC3339Nano, s)
	if r, rok := ParseRFC3339(s); rok != (err == nil) || r != want {
		t.Fatalf("ParseRFC3339(%q) = %v, %v; time.Parse: %v, %v", s, r, rok, want, err)
	}
	if ok && (err != nil || got != want) {
		t.Fatalf("ParseUTC(%q) = %v; time.Parse: %v, %v", s, got, want, err)
	}
	if !ok && err == nil && plainUTC.MatchString(s) {
		t.Fatalf("ParseUTC(%q) declined a time of its form (time.Parse: %v)", s, want)
	}
}

var plainUTC = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$`)

func TestParseUTC(t *testing.T) {
	for _, s := range []string{
		"2026-11-22T10:00:00Z", "2026-11-22T10:00:00.412Z", "2026-11-22T10:00:00.123456789Z",
		"2026-11-22T10:00:00.1234567891Z", "2026-11-22T10:00:00.Z", "2026-11-22T10:00:00,5Z",
		"2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
		"2026-04-31T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z",
		"0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2026-11-22t10:00:00Z",
		"2026-11-22T10:00:00z", "2026-11-22T10:00:00+00:00", "2026-11-22 10:00:00Z", "2026-1-22T10:00:00Z",
		"+026-11-22T10:00:00Z", "2026-11-22T10:00:0aZ", "", "Z", "2026-11-22T10:00:00.-1Z",
	} {
		parseUTCAgrees(t, s)
	}
	// Random strings of the form and near it.
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0123456789-T:.Z+ tz,"
	for range 200000 {
		b := []byte(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", r.IntN(10000), r.IntN(14), r.IntN(33), r.IntN(26), r.IntN(62), r.IntN(62)))
		if r.IntN(2) == 0 {
			b = append(b, '.')
			for range r.IntN(11) {
				b = append(b, byte('0'+r.IntN(10)))
			}
		}
		b = append(b, 'Z')
		for range r.IntN(3) {
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
		}
		parseUTCAgrees(t, string(b))
	}
}

func FuzzParseUTC(f *testing.F) {
	f.Add("2026-11-22T10:00:00.412Z")
	f.Add("2024-02-29T23:59:59Z")
	f.Fuzz(func(t *testing.T, s string) { parseUTCAgrees(t, s) })
}

func TestPartsNsecOffset(t *testing.T) {
	for _, c := range []struct {
		s          string
		nsec, offs int
	}{
		{"2026-02-05T10:30", 0, 0}, {"2026-02-05T10:30:00Z", 0, 0}, {"2026-02-05T10:30:00.5z", 500000000, 0},
		{"2026-02-05T10:30:00,123456789+01", 123456789, 3600}, {"2026-02-05T10:30:00.000000001-0130", 1, -5400},
		{"2026-02-05T10:30:00.12-01:30", 120000000, -5400}, {"2026-02-05T10:30+99:59", 0, 99*3600 + 59*60},
	} {
		m, ok := Form{Seps: "Tt", MaxFrac: 9}.Match(c.s)
		if !ok || m.Nsec() != c.nsec || m.Offset() != c.offs {
			t.Errorf("%q: ok %v, Nsec %d, Offset %d; want %d, %d", c.s, ok, m.Nsec(), m.Offset(), c.nsec, c.offs)
		}
	}
}

// TestParseUTCDateCache: the cached date (lastDate) serves only its own date,
// from any goroutine: workers parse times of a few dates at once, each checked
// against time.Parse, valid and invalid times of a cached date alike.
func TestParseUTCDateCache(t *testing.T) {
	dates := []string{"2024-02-29", "2023-02-28", "2025-01-06", "2025-01-07", "1969-12-31", "0000-03-01"}
	times := []string{"T00:00:00Z", "T23:59:59.5Z", "T24:00:00Z", "T12:60:00Z", "T08:00:01.123456789Z", "T08:00:01.Z"}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				s := dates[(i/3+g)%len(dates)] + times[(i+g)%len(times)]
				got, ok := ParseUTC(s)
				want, err := time.Parse(time.RFC3339Nano, s)
				if ok != (err == nil) || ok && got != want {
					t.Errorf("ParseUTC(%q) = %v, %v; time.Parse: %v, %v", s, got, ok, want, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// dialectOracle is Dialect.Parse by a regexp and time.Parse: the grammar of the
// dialect's Form, the ranges time.Parse checks, and those it does not (the
// offset's hour and minute, hour 24).
func dialectOracle(d Dialect, s string) (time.Time, Zone, bool) {
	frac := `\d+`
	if d.MaxFrac > 0 {
		frac = fmt.Sprintf(`\d{1,%d}`, d.MaxFrac)
	}
	re := regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[` + d.Seps + `](\d{2}):(\d{2})(?::(\d{2})(?:[.,](` + frac + `))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$`)
	m := re.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, 0, false
	}
	sec, f := m[4], m[5]
	if sec == "" {
		sec = "00"
	}
	if len(f) > 9 {
		f = f[:9]
	}
	if f != "" {
		f = "." + f
	}
	zone, off := ZoneNone, "Z"
	switch z := m[6]; {
	case z == "Z" || z == "z":
		zone = ZoneUTC
	case z != "":
		zone, off = ZoneOffset, z[:3]+":00"
		if len(z) > 3 {
			off = z[:3] + ":" + z[len(z)-2:]
		}
		var h, mm int
		fmt.Sscanf(off[1:], "%d:%d", &h, &mm)
		if h > 23 || mm > 59 {
			return time.Time{}, 0, false
		}
	}
	hour, next := m[2], time.Duration(0)
	if hour == "24" && d.EndOfDay && m[3] == "00" && sec == "00" && strings.Trim(f, ".0") == "" {
		hour, next = "00", 24*time.Hour
	}
	t, err := time.Parse(time.RFC3339Nano, m[1]+"T"+hour+":"+m[3]+":"+sec+f+off)
	if err != nil {
		return time.Time{}, 0, false
	}
	return t.Add(next), zone, true
}

var dialects = []Dialect{{Form: Form{Seps: "Tt"}}, {Form: Form{Seps: "Tt", MaxFrac: 9}, EndOfDay: true}, {Form: Form{Seps: "T "}}}

var dialectSeeds = []string{
	"2026-02-09T24:00:00Z", "2026-02-28T24:00Z", "2024-12-31T24:00:00.000+01:00", "2026-02-09T24:00:00.001Z", "2026-02-09T24:01:00Z",
	"2023-02-29T24:00:00Z", "2026-02-09T23:59:60Z", "2026-02-09T21:00:60Z", "2026-02-09T21:00:00+24:00", "2026-02-09T21:00:00+23:59",
	"2026-02-09T21:00:00+02:60", "2026-02-09T21:00:00-00:00", "2026-02-09T21:00:00+0000", "0999-01-01T00:00:00Z", "0000-01-01T00:00Z",
	"2026-02-09t21:00z", "2026-02-09T21:00:00.1234567891Z", "2026-02-09T21:00:00Z ", "2026-02-09 21:00:00",
}

func dialectAgrees(t *testing.T, s string) {
	t.Helper()
	for _, d := range dialects {
		got, gz, gok := d.Parse(s)
		want, wz, wok := dialectOracle(d, s)
		if gok != wok || gok && (!got.Equal(want) || gz != wz) {
			t.Fatalf("%+v.Parse(%q) = %v, %v, %v; oracle %v, %v, %v", d, s, got, gz, gok, want, wz, wok)
		}
	}
}

func TestDialect(t *testing.T) {
	for _, s := range append(append([]string{}, seeds...), dialectSeeds...) {
		dialectAgrees(t, s)
	}
	// The days of 24:00: the next day, across months and years.
	d := Dialect{Form: Form{Seps: "T"}, EndOfDay: true}
	for s, want := range map[string]string{"2024-02-28T24:00:00Z": "2024-02-29T00:00:00Z", "2024-02-29T24:00Z": "2024-03-01T00:00:00Z", "2026-12-31T24:00:00.0Z": "2027-01-01T00:00:00Z"} {
		if got, _, ok := d.Parse(s); !ok || got.Format(time.RFC3339) != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", s, got, ok, want)
		}
	}
}

func FuzzDialect(f *testing.F) {
	for _, s := range append(append([]string{}, seeds...), dialectSeeds...) {
		f.Add(s)
	}
	f.Fuzz(dialectAgrees)
}
