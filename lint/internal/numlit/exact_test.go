package numlit

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp"
	"testing"
)

func TestCmp(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"9007199254740993", "9007199254740992", 1}, // 2^53+1 > 2^53: one float64
		{"18446744073709551617", "18446744073709551616", 1},
		{"1e999999", "3", 1},
		{"3", "1e999999", -1},
		{"1.50", "1.5", 0},
		{"0.1e1", "1", 0},
		{"10e-1", "1", 0},
		{"-0", "0", 0},
		{"-0.0e5", "0e-3", 0},
		{"-2", "1", -1},
		{"-2", "-1", -1},
		{"-1e999999", "-3", -1},
		{"0.001", "0.0009999", 1},
		{"100", "1e2", 0},
		{"123.456", "123.4561", -1},
	} {
		got, ok := Cmp(tc.a, tc.b)
		if !ok || got != tc.want {
			t.Errorf("Cmp(%s, %s) = %d, %v; want %d", tc.a, tc.b, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1e", "1e+", "0x1", "1e99999999999999999999", "1e1152921504606846977", "NaN", "1_0"} {
		if _, ok := Cmp(bad, "1"); ok {
			t.Errorf("Cmp(%q) read it", bad)
		}
	}
}

// TestCmpAgreesWithBigRat over random literals of every form.
func TestCmpAgreesWithBigRat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lit := func() string {
		s := ""
		if rng.IntN(3) == 0 {
			s = "-"
		}
		s += fmt.Sprint(rng.IntN(3) * rng.IntN(1000))
		if rng.IntN(2) == 0 {
			s += "." + fmt.Sprintf("%0*d", 1+rng.IntN(3), rng.IntN(100))
		}
		if rng.IntN(2) == 0 {
			s += fmt.Sprintf("e%d", rng.IntN(9)-4)
		}
		return s
	}
	for range 20000 {
		a, b := lit(), lit()
		x, _ := new(big.Rat).SetString(a)
		y, _ := new(big.Rat).SetString(b)
		if got, ok := Cmp(a, b); !ok || got != x.Cmp(y) {
			t.Fatalf("Cmp(%s, %s) = %d, %v; big.Rat says %d", a, b, got, ok, x.Cmp(y))
		}
		ca, oka := ParseCount(a)
		cb, okb := ParseCount(b)
		if oka != (x.IsInt() && x.Sign() >= 0) {
			t.Fatalf("ParseCount(%s) = %v", a, oka)
		}
		if oka && okb {
			sum := new(big.Rat).Add(x, y)
			if s := ca.Add(cb).String(100); s != sum.Num().String() {
				t.Fatalf("%s + %s = %s, want %s", a, b, s, sum.Num())
			}
		}
	}
}

func TestCount(t *testing.T) {
	c := func(s string) Count {
		t.Helper()
		x, ok := ParseCount(s)
		if !ok {
			t.Fatalf("ParseCount(%s) refused it", s)
		}
		return x
	}
	if got := c("9").Add(c("1")).String(10); got != "10" {
		t.Errorf("9+1 = %s", got)
	}
	if got := c("2.5e1").Add(c("5")).String(10); got != "30" {
		t.Errorf("2.5e1+5 = %s", got)
	}
	if c("1e999999").Add(c("1")).Cmp(c("1e999999")) != 1 || c("1e999999").Add(c("0")).Cmp(c("1e999999")) != 0 {
		t.Error("1e999999+1 vs 1e999999")
	}
	if c("1e999999").String(40) != "" || c("1e39").String(40) != "1"+fmt.Sprintf("%039d", 0) {
		t.Errorf("String(40) of 1e999999 %q, of 1e39 %q", c("1e999999").String(40), c("1e39").String(40))
	}
	if c("9007199254740992").Add(c("1")).Cmp(c("9007199254740992")) != 1 {
		t.Error("2^53+1 > 2^53")
	}
	for _, bad := range []string{"-1", "1.5", "1e-1", "1e1000001", "x"} {
		if _, ok := ParseCount(bad); ok {
			t.Errorf("ParseCount(%s) took it", bad)
		}
	}
	if _, ok := ParseCount("-0"); !ok {
		t.Error("-0 is the count 0")
	}
}

// FuzzCmp: Cmp never panics, reads exactly JSON's number literals, and agrees
// with big.Rat on them (exponents of a few digits: big.Rat builds the power);
// a count's Add agrees too.
func FuzzCmp(f *testing.F) {
	for _, s := range [][2]string{{"1", "2"}, {"-0.5e3", "-500"}, {"9007199254740993", "9007199254740992"}, {"1e5", "100000.0"}, {"0.1", "1e-1"}, {"01", "1"}, {"-", "1e"}} {
		f.Add(s[0], s[1])
	}
	number := regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,3})?$`)
	f.Fuzz(func(t *testing.T, a, b string) {
		c, ok := Cmp(a, b)
		if !number.MatchString(a) || !number.MatchString(b) {
			return
		}
		x, _ := new(big.Rat).SetString(a)
		y, _ := new(big.Rat).SetString(b)
		if !ok || c != x.Cmp(y) {
			t.Fatalf("Cmp(%s, %s) = %d, %v; big.Rat: %d", a, b, c, ok, x.Cmp(y))
		}
		ca, oka := ParseCount(a)
		cb, okb := ParseCount(b)
		if oka != (x.IsInt() && x.Sign() >= 0) || okb != (y.IsInt() && y.Sign() >= 0) {
			t.Fatalf("ParseCount(%s) %v, (%s) %v", a, oka, b, okb)
		}
		if oka && okb {
			sum := new(big.Rat).Add(x, y)
			if s := ca.Add(cb).String(5000); s != sum.Num().String() {
				t.Fatalf("%s + %s = %s, want %s", a, b, s, sum.Num())
			}
		}
	})
}
