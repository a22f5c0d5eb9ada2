package isotime

import (
	"regexp"
	"testing"
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

func TestMatchAgreesWithTheRegexps(t *testing.T) {
	for _, s := range seeds {
		agree(t, s)
	}
}

func FuzzMatch(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(agree)
}
