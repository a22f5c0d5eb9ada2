package orchmsg

import (
	"regexp"
	"testing"
)

// uuidRe is the pattern IsID replaced: its oracle.
var uuidRe = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9_.]*[-_:])?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

var uuidSeeds = []string{
	"123e4567-e89b-12d3-a456-426614174000", "req-123e4567-e89b-12d3-a456-426614174000", "a:123e4567-e89b-12d3-a456-426614174000",
	"-123e4567-e89b-12d3-a456-426614174000", "1a-123e4567-e89b-12d3-a456-426614174000", "a.b_c9-123E4567-E89B-12D3-A456-426614174000",
	"a..-123e4567-e89b-12d3-a456-426614174000", "ab-123e4567-e89b-12d3-a456-42661417400g", "123e4567e89b12d3a456426614174000",
	"x123e4567-e89b-12d3-a456-426614174000", "é-123e4567-e89b-12d3-a456-426614174000", "", "a-", "req-123",
	"a--123e4567-e89b-12d3-a456-426614174000", "a-b-123e4567-e89b-12d3-a456-426614174000",
}

func agreeUUID(t *testing.T, s string) {
	if got, want := IsID(s), uuidRe.MatchString(s); got != want {
		t.Fatalf("IsID(%q) = %v, regexp %v", s, got, want)
	}
}

func FuzzPrefixedUUID(f *testing.F) {
	for _, s := range uuidSeeds {
		f.Add(s)
	}
	f.Fuzz(agreeUUID)
}

// TestPrefixedUUIDBytes: every byte at every place of a UUID (bare and
// prefixed) is judged as the regexp judges it (the hex test reads eight
// bytes at a time).
func TestPrefixedUUIDBytes(t *testing.T) {
	for _, base := range []string{"123e4567-e89b-12d3-a456-426614174000", "req-AbCdEf01-2345-6789-aBcD-eF0123456789"} {
		for i := range base {
			for c := range 256 {
				b := []byte(base)
				b[i] = byte(c)
				agreeUUID(t, string(b))
			}
		}
	}
}
