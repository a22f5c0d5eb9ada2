package aos

import (
	"testing"
	"time"
)

// timestampProblemByParse is TimestampProblem as it was, by time.Parse of the
// date and time rebuilt from the match: the oracle of the digit checks.
func timestampProblemByParse(s string) string {
	m, ok := isoForm.Match(s)
	if !ok {
		return "is not an ISO 8601 date-time"
	}
	sec := m[6]
	if sec == "" {
		sec = "00"
	}
	if sec == "60" {
		sec = "59" // leap second
	}
	if _, err := time.Parse("2006-01-02T15:04:05", m[1]+"-"+m[2]+"-"+m[3]+"T"+m[4]+":"+m[5]+":"+sec); err != nil {
		return "is not a real date and time"
	}
	return ""
}

var timestampSeeds = []string{
	"2025-01-24T15:30:45.123Z", "2025-01-24 15:30", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
	"2000-02-29T12:00:60+01:00", "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z", "2025-04-31T00:00:00Z", "2025-01-00T00:00Z",
	"2025-01-01T24:00:00Z", "2025-01-01T23:60:00Z", "2025-01-01T23:59:61Z", "0000-01-01T00:00:00Z", "24/01/2025 15:30", "",
}

func FuzzTimestampProblem(f *testing.F) {
	for _, s := range timestampSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := TimestampProblem(s), timestampProblemByParse(s); got != want {
			t.Errorf("TimestampProblem(%q) = %q, time.Parse says %q", s, got, want)
		}
	})
}
