package aos

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestRequestIDAndEcho(t *testing.T) {
	for _, c := range []struct {
		v    any
		ok   bool
		want string
	}{
		{"req-1", true, `"req-1"`}, {"", true, `""`}, {json.Number("1"), true, "1"}, {json.Number("1.0"), true, "1"},
		{float64(7), true, "7"}, {int64(-3), true, "-3"}, {3, true, "3"},
		{json.Number("1.5"), false, ""}, {1.5, false, ""}, {nil, false, ""}, {true, false, ""},
		{map[string]any{}, false, ""}, {[]any{}, false, ""}, {json.Number("1e300"), false, ""},
	} {
		id, ok := RequestID(c.v)
		if ok != c.ok || (ok && id.String() != c.want) {
			t.Errorf("RequestID(%#v) = %v %v, want %s %v", c.v, id, ok, c.want, c.ok)
		}
	}
	one, _ := RequestID(1)
	str, _ := RequestID("1")
	for _, c := range []struct {
		got  any
		want ID
		ok   bool
	}{
		{json.Number("1"), one, true}, {float64(1), one, true}, {"1", one, false}, {json.Number("1"), str, false},
		{"1", str, true}, {nil, one, false}, {json.Number("2"), one, false},
	} {
		if Echoes(c.got, c.want) != c.ok {
			t.Errorf("Echoes(%#v, %v) = %v", c.got, c.want, !c.ok)
		}
	}
	if one.Value() != int64(1) || str.Value() != "1" {
		t.Errorf("Value: %#v %#v", one.Value(), str.Value())
	}
}

func TestTimestamps(t *testing.T) {
	for s, ok := range map[string]bool{
		"2025-01-24T15:30:45.123Z": true, "2025-01-24T15:30:45Z": true, "2025-01-24T15:30": true,
		"2025-01-24 15:30:45+02:00": true, "2025-01-24T15:30:60Z": true,
		"24/01/2025 15:30": false, "2025-02-30T10:00:00Z": false, "1737732645": false, "": false,
	} {
		if (TimestampProblem(s) == "") != ok {
			t.Errorf("TimestampProblem(%q) = %q", s, TimestampProblem(s))
		}
	}
	ts := FormatTime(time.Date(2025, 1, 24, 16, 30, 45, 123e6, time.FixedZone("", 3600)))
	if ts != "2025-01-24T15:30:45.123Z" || TimestampProblem(ts) != "" {
		t.Errorf("FormatTime = %q", ts)
	}
	if !IsMethod(MethodPing) || IsMethod("tools/call") || len(Methods) != 10 {
		t.Error("methods")
	}
}

// TestMethod holds Method's switch to Methods: each method is the constant,
// and a name one edit away from one is no method.
func TestMethod(t *testing.T) {
	for _, m := range Methods {
		if got := Method(strings.Clone(m)); got != m || unsafe.StringData(got) != unsafe.StringData(m) {
			t.Errorf("Method(%q) = %q, not the constant", m, got)
		}
		for _, near := range []string{m[:len(m)-1], m + "/", strings.ToUpper(m), "x" + m[1:]} {
			if Method(near) != "" || IsMethod(near) {
				t.Errorf("Method(%q) = %q, want none", near, Method(near))
			}
		}
	}
}

// FuzzNumberID: NumberID answers as RequestID's ok does for a JSON number.
func FuzzNumberID(f *testing.F) {
	for _, s := range []string{"1", "-7", "0", "1.0", "1.5", "1e3", "1e300", "9007199254740993", "9223372036854775808", "-0", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, want := RequestID(json.Number(s))
		if got := NumberID(json.Number(s)); got != want {
			t.Fatalf("NumberID(%q) = %v, RequestID says %v", s, got, want)
		}
	})
}
