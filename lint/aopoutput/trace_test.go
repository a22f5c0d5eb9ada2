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
	r := rand.New(rand.NewSource(3))
	matched := 0
	for i := 0; i < 300000; i++ {
		var b strings.Builder
		for n := 1 + r.Intn(8); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := b.String()
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
	}
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
	r := rand.New(rand.NewSource(5))
	matched := 0
	for i := 0; i < 300000; i++ {
		var b strings.Builder
		for n := 1 + r.Intn(6); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		s := b.String()
		if codeLineRe().MatchString(s) {
			matched++
			if !mayBeCode(s) {
				t.Fatalf("codeLineRe matches %q, mayBeCode says no", s)
			}
		}
		if isFence(s) != fenceRe.MatchString(s) {
			t.Fatalf("isFence(%q) = %v, the regexp %v", s, isFence(s), fenceRe.MatchString(s))
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d lines matched: the test does not reach the regexp", matched)
	}
}
