package aopoutput

import (
	"math/rand"
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
