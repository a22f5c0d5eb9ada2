package aop2

import (
	"strings"
	"testing"
	"unsafe"
)

// TestNumText: a number's text comes back as written, short (inline) or long
// (copied), and owns its bytes.
func TestNumText(t *testing.T) {
	for _, s := range []string{"", "0", "55", "33.333333333333336", "12345678901234567890123", "123456789012345678901234", "1e400" + strings.Repeat("0", 40)} {
		b := []byte(s)
		txt := ownNum(unsafe.String(unsafe.SliceData(b), len(b))) // lent, as a line's string is
		for i := range b {
			b[i] = 'x'
		}
		if got := txt.String(); got != s {
			t.Errorf("ownNum(%q).String() = %q", s, got)
		}
	}
}
