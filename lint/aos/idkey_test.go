package aos

import (
	"encoding/json"
	"testing"

	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// slowIDKey is idKey of a number without plainInt's fast path.
func slowIDKey(lit string) string {
	if id, ok := spec.RequestID(json.Number(lit)); ok {
		return "n:" + id.Str
	}
	return "n:" + lit
}

// TestIDKeyPlainInt: idKey's fast path for plain integers gives the key the
// spec's reading gives.
func TestIDKeyPlainInt(t *testing.T) {
	for lit, want := range map[string]bool{"0": true, "42": true, "-7": true, "123456789012345678": true,
		"-0": false, "01": false, "1234567890123456789": false, "1.0": false, "1e3": false, "": false, "-": false} {
		if plainInt(lit) != want {
			t.Errorf("plainInt(%q) = %v", lit, !want)
		}
	}
	for _, lit := range []string{"0", "-0", "1", "-1", "7", "10", "00", "01", "-01", "123456789012345678", "-123456789012345678",
		"1234567890123456789", "9223372036854775807", "9223372036854775808", "1.0", "1e3", "-", "", "1a", "12.5", "-0.0"} {
		if plainInt(lit) {
			if got, want := "n:"+lit, slowIDKey(lit); got != want {
				t.Errorf("%q: fast key %q, spec's %q", lit, got, want)
			}
		}
	}
}

func FuzzPlainInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "42", "-7", "007", "1e2", "123456789012345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		if plainInt(lit) && "n:"+lit != slowIDKey(lit) {
			t.Errorf("%q: fast key %q, spec's %q", lit, "n:"+lit, slowIDKey(lit))
		}
	})
}
