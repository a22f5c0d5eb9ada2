package safetext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscapes(t *testing.T) {
	for _, tc := range []struct{ in, line, block string }{
		{"plain ünï — ✅", "plain ünï — ✅", "plain ünï — ✅"},
		{"a\x1b[2Jb", `a\x1b[2Jb`, `a\x1b[2Jb`},
		{"bel\x07 nul\x00 del\x7f", `bel\a nul\x00 del\x7f`, `bel\a nul\x00 del\x7f`},
		{"\x1b]0;title\x07", `\x1b]0;title\a`, `\x1b]0;title\a`},
		{"c1 \u009b31m \u0085", `c1 \u009b31m \u0085`, `c1 \u009b31m \u0085`},
		{"bidi \u202e \u2066x\u2069", `bidi \u202e \u2066x\u2069`, `bidi \u202e \u2066x\u2069`},
		{"two\nlines\tand\ra cr", `two\nlines\tand\ra cr`, "two\nlines\tand\\ra cr"},
		{"bad \xff\xfe utf-8", `bad \xff\xfe utf-8`, `bad \xff\xfe utf-8`},
		{"sep\u2028", `sep\u2028`, `sep\u2028`},
	} {
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
		if got := Block(tc.in); got != tc.block {
			t.Errorf("Block(%q) = %q, want %q", tc.in, got, tc.block)
		}
	}
	if Path("ünï.json") != "ünï.json" || Path("a\nb") != `"a\nb"` {
		t.Errorf("Path: %q %q", Path("ünï.json"), Path("a\nb"))
	}
}

// FuzzBlock: whatever s holds, Block keeps its lines and shows nothing but
// printable characters, newlines and tabs; Line nothing but printable ones.
func FuzzBlock(f *testing.F) {
	for _, s := range []string{"plain", "a\nb\tc", "\x1b[31mred\x07", "bidi \u202e", "\xff\xfe", "\u009b\x7f\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, l := Block(s), Line(s)
		if !utf8.ValidString(b) || !utf8.ValidString(l) {
			t.Fatalf("%q: not UTF-8: %q %q", s, b, l)
		}
		for _, r := range b {
			if !unicode.IsPrint(r) && r != '\n' && r != '\t' {
				t.Fatalf("Block(%q) = %q keeps %U", s, b, r)
			}
		}
		for _, r := range l {
			if !unicode.IsPrint(r) {
				t.Fatalf("Line(%q) = %q keeps %U", s, l, r)
			}
		}
		if strings.Count(b, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Block(%q) = %q: the lines changed", s, b)
		}
	})
}
