package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCompare: any expected/actual pair renders without panicking, and the HTML
// blocks carry the text escaped.
func FuzzCompare(f *testing.F) {
	f.Add(`{"a":1}`, `{"a":2}`)
	f.Add("1000", "2250")
	f.Add("a sentence here", "<b>another</b>")
	f.Add("x\ny", "")
	f.Fuzz(func(t *testing.T, exp, act string) {
		_, e, a := htmlCompare(exp, act)
		for _, s := range []string{string(e), string(a)} {
			if strings.Contains(strings.NewReplacer("<del>", "", "</del>", "", "<ins>", "", "</ins>", "", `<del class="line">`, "", `<ins class="line">`, "").Replace(s), "<") {
				t.Fatalf("unescaped markup in %q", s)
			}
		}
		_ = unifiedDiff(exp, act)
	})
}

// FuzzWrap: wrapped text keeps every word and no line is longer than the width.
func FuzzWrap(f *testing.F) {
	f.Add("the agent sent 0 RESPONSE messages", 20)
	f.Add(strings.Repeat("x", 300), 100)
	f.Fuzz(func(t *testing.T, s string, width int) {
		if width < 8 || width > 200 || !utf8.ValidString(s) {
			return
		}
		out := wrap(s, width, "  a: ", "    ")
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Fatalf("line of %d > %d: %q", n, width, l)
			}
		}
		if strings.Join(strings.Fields(strings.ReplaceAll(out, "  a: ", "")), "") != strings.Join(strings.Fields(s), "") {
			t.Fatalf("words lost: %q -> %q", s, out)
		}
	})
}
