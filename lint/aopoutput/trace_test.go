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
	if raceEnabled {
		t.Skip("sequential regexp matching: run without -race (race_test.go)")
	}
	pieces := []string{"at", "at ", " ", "\t", "Traceback (most recent call last):", "goroutine 1 [running]:", "goroutine ",
		`Exception in thread "`, "panic: ", `File "`, `"`, ", line ", "12", ":", "main.go", ".go:", "+0x1f", "(", ")",
		"Foo.java", ".java:", "x", "$", "<init>", ".kt:", "a.b", "- ", "* ", "\u00e9", "File", "Traceback", "panic"}
	matched := 0
	pieceLines(pieces, 3, 8, func(s string) {
		matched += prefiltered(t, s, traceHeaderRe(), "traceHeaderRe", mayBeTraceHeader, "mayBeTraceHeader")
		matched += prefiltered(t, s, frameRe(), "frameRe", mayBeFrame, "mayBeFrame")
	})
	if matched < 1000 {
		t.Fatalf("only %d lines matched: the test does not reach the regexps", matched)
	}
}

// mayBeCode passes every line codeLineRe matches, and isFence is the fence
// regexp it replaced: lines made of the regexp's pieces, joined at random.
func TestCodePrefilters(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential regexp matching: run without -race (race_test.go)")
	}
	fenceRe := regexp.MustCompile("^(```|~~~)")
	pieces := []string{"import", "from", "package", "func", "def", "class", "const", "let", "var", "#include", "public",
		"private", "protected", "return", "export", "async", "function", "if", "for", "while", "}", "{", "<", ">", "</",
		"div", "a", "(", ";", " ", "\t", "\r", "\f", "\n", "\v", "x", "- ", "```", "~~~", "`", "~", "\u00e9", "_", "1"}
	matched := 0
	pieceLines(pieces, 5, 6, func(s string) {
		matched += prefiltered(t, s, codeLineRe(), "codeLineRe", mayBeCode, "mayBeCode")
		if isFence(s) != fenceRe.MatchString(s) {
			t.Fatalf("isFence(%q) = %v, the regexp %v", s, isFence(s), fenceRe.MatchString(s))
		}
	})
	if matched < 1000 {
		t.Fatalf("only %d lines matched: the test does not reach the regexp", matched)
	}
}

// prefiltered is 1 if re matches s, else 0; it fails t if re matches s and
// pre, re's prefilter, does not pass it.
func prefiltered(t *testing.T, s string, re *regexp.Regexp, reName string, pre func(string) bool, preName string) int {
	t.Helper()
	if !re.MatchString(s) {
		return 0
	}
	if !pre(s) {
		t.Fatalf("%s matches %q, %s says no", reName, s, preName)
	}
	return 1
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
