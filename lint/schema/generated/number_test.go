package generated

import (
	"math"
	"math/big"
	"testing"
	"unicode/utf8"
)

// numberLiterals are literals for the number fast paths: plain digits, signs,
// lengths around the 18-digit limit, fractions, exponents, and strings no JSON
// parser makes (a hand-built node can hold any).
var numberLiterals = []string{
	"0", "-0", "1", "-1", "7", "42", "-42", "007", "1800", "-1800",
	"999999999999999999", "-999999999999999999", "1000000000000000000", "-1000000000000000000",
	"9223372036854775807", "-9223372036854775808", "9223372036854775808", "123456789012345678901234",
	"1.0", "1.5", "-2.000", "30.0", "1e3", "1E3", "-1e-3", "2.5e2", "1.", ".5",
	"0.33", "-0.5", "-0.0", "0.000", "99.5", "100.0", "100.01", "-4.5", "-5.0", "-5.5", "-6.000001", "0.99999999999999999999",
	"1.00000000000000000001", "-0.00000000000000000001", "123456789012345678.5", "1234567890123456789.5", "1.2.3", "1.x", "1.-5",
	"", "-", "--1", "+1", "1_000", "0x10", "1 ", " 1", "1-", "12a", "١٢", "NaN", "Inf",
}

// numberBounds are bounds as schemagen writes them, integer and not.
var numberBounds = []bound{
	{i: 0, isInt: true, f: 0, exact: true},
	{i: 1, isInt: true, f: 1, exact: true},
	{i: -5, isInt: true, f: -5, exact: true},
	{i: 100, isInt: true, f: 100, exact: true},
	{i: math.MaxInt64, isInt: true},
	{i: math.MinInt64, isInt: true},
	{f: 0.5, exact: true},
	{f: 1e300, exact: true},
	{},
}

// checkNumberFastPaths holds isInteger to the cuts it replaced (isIntegerCut
// reads any literal), and bound.cmp to the strconv reading it skips (cmpParsed)
// and to exact arithmetic: cmp answers whenever cmpParsed does, the same, and
// every answer of cmp is big.Rat's (gojsonschema's).
func checkNumberFastPaths(t *testing.T, lit string) {
	t.Helper()
	if got, want := isInteger(lit), isIntegerCut(lit); got != want {
		t.Errorf("isInteger(%q) = %v, the cuts say %v", lit, got, want)
	}
	v, vok := new(big.Rat).SetString(lit)
	for _, b := range numberBounds {
		gc, gok := b.cmp(lit)
		wc, wok := b.cmpParsed(lit)
		if wok && (!gok || gc != wc) {
			t.Errorf("bound %+v: cmp(%q) = %d, %v; strconv says %d, %v", b, lit, gc, gok, wc, wok)
		}
		var bv *big.Rat
		switch {
		case b.isInt:
			bv = new(big.Rat).SetInt64(b.i)
		case b.exact:
			bv = new(big.Rat).SetFloat64(b.f)
		}
		if gok && vok && bv != nil && v.Cmp(bv) != gc {
			t.Errorf("bound %+v: cmp(%q) = %d; big.Rat says %d", b, lit, gc, v.Cmp(bv))
		}
	}
}

// FuzzNumberFastPaths: the digit loops of isInteger and bound.cmp answer as the
// code they skip does. Plain go test runs it on its seeds, numberLiterals.
func FuzzNumberFastPaths(f *testing.F) {
	for _, lit := range numberLiterals {
		f.Add(lit)
	}
	f.Fuzz(func(t *testing.T, lit string) { checkNumberFastPaths(t, lit) })
}

// runeStrings are strings for runesUnder and runesOver: empty, ASCII, runes of 2
// to 4 bytes, invalid bytes, at lengths around the bounds below.
var runeStrings = []string{
	"", "a", "ab", "abcd", "é", "éé", "日本", "日本語", "😀", "😀😀", "\xff", "\xff\xfe", "a\xffé",
	"\xf0\x9f\x98", "\xf0\x9f\x98\x80\x80", "abcdefghijklmnopqrstuvwxyz", "日本語日本語日本語日本語",
}

// checkRuneBounds holds runesUnder and runesOver to a count of the runes of s.
func checkRuneBounds(t *testing.T, s string, bound int) {
	t.Helper()
	n := utf8.RuneCountInString(s)
	if got := runesUnder(s, bound); got != (n < bound) {
		t.Errorf("runesUnder(%q, %d) = %v with %d runes", s, bound, got, n)
	}
	if got := runesOver(s, bound); got != (n > bound) {
		t.Errorf("runesOver(%q, %d) = %v with %d runes", s, bound, got, n)
	}
}

// TestRuneBounds: the length tests of runesUnder and runesOver answer as a
// count of the runes does.
func TestRuneBounds(t *testing.T) {
	for _, s := range runeStrings {
		for bound := 0; bound <= 30; bound++ {
			checkRuneBounds(t, s, bound)
		}
	}
}

func FuzzRuneBounds(f *testing.F) {
	for _, s := range runeStrings {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, bound uint8) { checkRuneBounds(t, s, int(bound)) })
}
