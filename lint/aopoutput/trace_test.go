package aopoutput

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// The prefilters of findTrace pass every line its regexps match: lines made
// of the regexps' own pieces, joined at random, hold one to the other.
func TestTracePrefilters(t *testing.T) {
	pieces := []string{"at", "at ", " ", "\t", "Traceback (most recent call last):", "goroutine 1 [running]:", "goroutine ",
		`Exception in thread "`, "panic: ", `File "`, `"`, ", line ", "12", ":", "main.go", ".go:", "+0x1f", "(", ")",
		"Foo.java", ".java:", "x", "$", "<init>", ".kt:", "a.b", "- ", "* ", "\u00e9", "File", "Traceback", "panic"}
	matched := 0
	pieceLines(pieces, 3, 8, func(s string) {
		if traceHeaderRe().MatchString(s) {
			matched++
			if !mayBeTraceHeader(s) {
				t.Fatalf("traceHeaderRe matches %q, mayBeTraceHeader says no", s)
			}
		}
		if frameRe().MatchString(s) {
			matched++
			if !mayBeFrame(s) {
				t.Fatalf("frameRe matches %q, mayBeFrame says no", s)
			}
		}
	})
	if matched < 1000 {
		t.Fatalf("only %d lines matched: the test does not reach the regexps", matched)
	}
}

// mayBeCode passes every line codeLineRe matches, and isFence is the fence
// regexp it replaced: lines made of the regexp's pieces, joined at random.
func TestCodePrefilters(t *testing.T) {
	fenceRe := regexp.MustCompile("^(```|~~~)")
	pieces := []string{"import", "from", "package", "func", "def", "class", "const", "let", "var", "#include", "public",
		"private", "protected", "return", "export", "async", "function", "if", "for", "while", "}", "{", "<", ">", "</",
		"div", "a", "(", ";", " ", "\t", "\r", "\f", "\n", "\v", "x", "- ", "```", "~~~", "`", "~", "\u00e9", "_", "1"}
	matched := 0
	pieceLines(pieces, 5, 6, func(s string) {
		if codeLineRe().MatchString(s) {
			matched++
			if !mayBeCode(s) {
				t.Fatalf("codeLineRe matches %q, mayBeCode says no", s)
			}
		}
		if isFence(s) != fenceRe.MatchString(s) {
			t.Fatalf("isFence(%q) = %v, the regexp %v", s, isFence(s), fenceRe.MatchString(s))
		}
	})
	if matched < 1000 {
		t.Fatalf("only %d lines matched: the test does not reach the regexp", matched)
	}
}

// pieceLines calls f with 300k lines of 1 to max pieces joined at random.
func pieceLines(pieces []string, seed int64, max int, f func(string)) {
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < 300000; i++ {
		var b strings.Builder
		for n := 1 + r.Intn(max); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		f(b.String())
	}
}
