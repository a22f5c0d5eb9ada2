package aof

import (
	"testing"
	"unicode/utf16"
)

// TestLengthCountsUTF16Units: Length agrees with encoding each rune to UTF-16.
func TestLengthCountsUTF16Units(t *testing.T) {
	for _, s := range []string{"", "abc", "é", "€", "😀", "a😀b\U0010FFFF", "\xff\xfe", "\xed\xa0\x80", "\xf4\x90\x80\x80", "日本語"} {
		want := 0
		for _, r := range s {
			want += len(utf16.Encode([]rune{r}))
		}
		if got := Length(s); got != want {
			t.Errorf("Length(%q) = %d, want %d", s, got, want)
		}
		// lint/aof checkLimits counts only a string longer in bytes than a limit.
		if Length(s) > len(s) {
			t.Errorf("Length(%q) = %d, over its %d bytes", s, Length(s), len(s))
		}
	}
	for i := 0; i < 1<<16; i++ {
		s := string([]byte{byte(i), byte(i >> 8), 0xf0, byte(i), 0x9f, 0x98, 0x80})
		if Length(s) > len(s) {
			t.Fatalf("Length(%q) = %d, over its %d bytes", s, Length(s), len(s))
		}
	}
}
