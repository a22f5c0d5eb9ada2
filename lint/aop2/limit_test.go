package aop2_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/aop2"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// TestEnvelopeSizeCountsCompactDecimalKB: the 200KB of §4 is 200,000 bytes of the
// message as sent (compact); the indentation of a file does not count.
func TestEnvelopeSizeCountsCompactDecimalKB(t *testing.T) {
	t.Parallel()
	sized := func(n int) string {
		base := with(t, func(m map[string]any) { m["extensions"] = map[string]any{"x_blob": ""} })
		pad := n - aop2spec.CompactSize([]byte(base))
		return strings.Replace(base, `"x_blob":""`, `"x_blob":"`+strings.Repeat("a", pad)+`"`, 1)
	}
	for _, tc := range []struct {
		size int
		want bool
	}{{200000, false}, {200001, true}} {
		msg := sized(tc.size)
		if got := aop2spec.CompactSize([]byte(msg)); got != tc.size {
			t.Fatalf("built %d bytes, want %d", got, tc.size)
		}
		if got := has(lintText(t, msg), aop2.EnvelopeSize.ID); got != tc.want {
			t.Errorf("%d bytes compact: AOP2-LIMIT-003 reported = %v, want %v", tc.size, got, tc.want)
		}
		// The same message indented: 20 spaces before every member change nothing.
		pretty := strings.ReplaceAll(msg, `,"`, ",\n                    \"")
		if got := has(lintText(t, pretty), aop2.EnvelopeSize.ID); got != tc.want {
			t.Errorf("%d bytes compact, %d indented: AOP2-LIMIT-003 reported = %v, want %v", tc.size, len(pretty), got, tc.want)
		}
	}
	if got := aop2spec.CompactSize([]byte("{ \"a b\" : [ 1 , \"x\\\" y\" ] }\n")); got != len(`{"a b":[1,"x\" y"]}`) {
		t.Errorf("CompactSize = %d", got)
	}
}

// FuzzCompactSize: CompactSize agrees with encoding/json's Compact on every valid
// JSON text.
func FuzzCompactSize(f *testing.F) {
	f.Add([]byte("{ \"a\" : [1, 2, \"x y\\\"\\\\ \"] }\n"))
	f.Add([]byte(minimalTask))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b bytes.Buffer
		if json.Compact(&b, data) != nil {
			return
		}
		if got := aop2spec.CompactSize(data); got != b.Len() {
			t.Fatalf("CompactSize(%q) = %d, json.Compact gives %d", data, got, b.Len())
		}
	})
}
