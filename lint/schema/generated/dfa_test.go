package generated

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// runeOfClass returns a rune of class c of d, picked by rng (false: the class
// has none d can name: class 0 of an automaton whose ASCII runes all belong to
// a class, which any rune outside its ranges stands for).
func runeOfClass(d *dfa, c int, rng *rand.Rand) rune {
	var cands []rune
	for r, rc := range d.ascii {
		if int(rc) == c {
			cands = append(cands, rune(r))
		}
	}
	for _, rr := range d.ranges {
		if int(rr.class) == c {
			cands = append(cands, rr.lo, rr.hi, rr.lo+(rr.hi-rr.lo)/2)
		}
	}
	if c == 0 {
		cands = append(cands, 0x2603, 0x10FFFF) // outside every range of these patterns' classes, or in one: both say something
	}
	if len(cands) == 0 {
		return 'a'
	}
	return cands[rng.IntN(len(cands))]
}

// walk returns a string the automaton accepts, made by a random walk over its
// live transitions, or "" when the walk ran into a dead end.
func walk(d *dfa, rng *rand.Rand) string {
	var b strings.Builder
	st := 1
	for steps := 0; steps < 64; steps++ {
		if d.accept[st] && rng.IntN(4) == 0 {
			break
		}
		var live []int
		for c := 0; c < d.nclass; c++ {
			if d.next[st*d.nclass+c] != 0 {
				live = append(live, c)
			}
		}
		if len(live) == 0 {
			break
		}
		c := live[rng.IntN(len(live))]
		b.WriteRune(runeOfClass(d, c, rng))
		st = int(d.next[st*d.nclass+c])
	}
	return b.String()
}

// mutate changes s a little: a byte replaced, inserted or deleted, a rune
// appended, or s cut.
func mutate(s string, rng *rand.Rand) string {
	alphabet := []string{"0", "9", "T", "t", "Z", "z", "+", "-", ":", ".", ",", " ", "\t", "\n", "\r", "\f", "\v", "K", "\u212a", "é", "\u00a0", "\u2028", "\xff", "\x80", "A", "S", "\x00"}
	a := alphabet[rng.IntN(len(alphabet))]
	i := 0
	if len(s) > 0 {
		i = rng.IntN(len(s) + 1)
	}
	switch rng.IntN(5) {
	case 0:
		if i < len(s) {
			return s[:i] + a + s[i+1:]
		}
		return s + a
	case 1:
		return s[:i] + a + s[i:]
	case 2:
		if i < len(s) {
			return s[:i] + s[i+1:]
		}
		return s
	case 3:
		return s + a
	}
	return s[:i]
}

// TestDFAsMatchTheirRegexp holds every pattern automaton equal to Go's regexp
// (gojsonschema's matcher) on strings each accepts, on mutations of them, and on
// edge cases.
func TestDFAsMatchTheirRegexp(t *testing.T) {
	if len(dfas) == 0 {
		t.Fatal("no pattern automaton generated")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range dfas {
		re := regexp.MustCompile(d.pattern)
		accepted := 0
		check := func(s string) {
			t.Helper()
			if got, want := d.match(s), re.MatchString(s); got != want || d.matchClasses(s) != want {
				t.Fatalf("%s on %q: automaton %v (by classes %v), regexp %v", d.pattern, s, got, d.matchClasses(s), want)
			}
		}
		for _, s := range []string{"", " ", "a", "\xff", "é", "\u212a", "2025-01-02T03:04:05Z", "2025-01-02t03:04:05.123456789+01:00",
			"2025-01-02T03:04", "2025-01-02T03:04:05,5-0130", "TASK-2025-01-02-001", "TASK-2025-01-02-0010", "a b", "ab\n"} {
			check(s)
		}
		for n := 0; n < 5000; n++ {
			s := walk(d, rng)
			if d.match(s) {
				accepted++
			}
			check(s)
			for m := 0; m < 3; m++ {
				s = mutate(s, rng)
				check(s)
			}
		}
		if accepted == 0 {
			t.Errorf("%s: the walks made no accepted string", d.pattern)
		}
	}
}

// TestDFAsDeadState: state 0 of every automaton is dead (every class steps to
// it, it accepts nothing) and the state other keeps every byte, which match's
// loop counts on instead of testing for them per byte.
func TestDFAsDeadState(t *testing.T) {
	for _, d := range dfas {
		if d.accept[0] {
			t.Errorf("%s: state 0 accepts", d.pattern)
		}
		for class := 0; class < d.nclass; class++ {
			if next := d.next[class]; next != 0 {
				t.Errorf("%s: state 0 steps to %d on class %d", d.pattern, next, class)
			}
		}
		for b := 0; b < 256; b++ {
			want := 0
			if b >= utf8.RuneSelf {
				want = d.other
			}
			if int(d.step[b]) != want {
				t.Errorf("%s: state 0 steps to %d on byte %#x", d.pattern, d.step[b], b)
			}
			if int(d.step[d.other<<8|b]) != d.other {
				t.Errorf("%s: the state of other bytes steps to %d on byte %#x", d.pattern, d.step[d.other<<8|b], b)
			}
		}
	}
}

// FuzzDFAs: on any string, every pattern automaton answers as its regexp.
func FuzzDFAs(f *testing.F) {
	for _, s := range []string{"", "2025-01-02T03:04:05Z", "2025-01-02T03:04:05.1+01:00", "TASK-2025-01-02-001", "x y", "\xff", "\u212a"} {
		f.Add(s)
	}
	res := make([]*regexp.Regexp, len(dfas))
	for i, d := range dfas {
		res[i] = regexp.MustCompile(d.pattern)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, d := range dfas {
			if got, want := d.match(s), res[i].MatchString(s); got != want || d.matchClasses(s) != want {
				t.Fatalf("%s on %q: automaton %v, regexp %v (valid UTF-8: %v)", d.pattern, s, got, want, utf8.ValidString(s))
			}
		}
	})
}
