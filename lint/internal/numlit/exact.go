package numlit

import (
	"strconv"
	"strings"
)

// The rules that compare numbers a message states (counts, limits) compare the
// literals exactly, not as float64: 2^53+1 and 2^53 are one float64, and
// 1e999999 is none (strconv.ParseFloat: out of range). Reading a literal here
// makes nothing as long as its exponent (big.Rat builds 10^999999).

// dec is a JSON number literal read exactly: its value is
// (-1)^neg × 0.d1d2d3... × 10^point, the d its significant digits (no leading
// or trailing zero; none for zero), found in the literal's mantissa m
// (its digits, the point left out) at m[from:to].
type dec struct {
	neg      bool
	ip, frac string // the digits before and after the point
	from, to int    // the significant digits' span of ip+frac
	point    int64
}

// digit is the i-th digit of ip+frac.
func (d *dec) digit(i int) byte {
	if i < len(d.ip) {
		return d.ip[i]
	}
	return d.frac[i-len(d.ip)]
}

func (d *dec) zero() bool { return d.from == d.to }

// maxExp bounds the exponents read, so that point never overflows.
const maxExp = 1 << 60

// parse reads a literal of JSON's grammar (a '-', digits, '.' and digits, an
// exponent); ok is false for anything else, or an exponent past ±2^60.
func parse(lit string) (d dec, ok bool) {
	s := lit
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, expPart, hasExp := strings.Cut(s, "e")
	if !hasExp {
		mant, expPart, hasExp = strings.Cut(s, "E")
	}
	var exp int64
	if hasExp {
		ds := strings.TrimPrefix(strings.TrimPrefix(expPart, "+"), "-")
		if ds == "" || strings.TrimLeft(ds, "0123456789") != "" {
			return d, false
		}
		e, err := strconv.ParseInt(strings.TrimPrefix(expPart, "+"), 10, 64)
		if err != nil || e > maxExp || e < -maxExp {
			return d, false
		}
		exp = e
	}
	ip, frac, dot := strings.Cut(mant, ".")
	if ip == "" || dot && frac == "" || strings.TrimLeft(ip, "0123456789") != "" || strings.TrimLeft(frac, "0123456789") != "" {
		return d, false
	}
	d.ip, d.frac = ip, frac
	n := len(ip) + len(frac)
	for d.from < n && d.digit(d.from) == '0' {
		d.from++
	}
	d.to = n
	for d.to > d.from && d.digit(d.to-1) == '0' {
		d.to--
	}
	d.point = int64(len(ip)-d.from) + exp
	return d, true
}

// cmpAbs compares |x| and |y|.
func cmpAbs(x, y *dec) int {
	switch {
	case x.zero() && y.zero():
		return 0
	case x.zero():
		return -1
	case y.zero():
		return 1
	case x.point != y.point:
		return cmp3(x.point, y.point)
	}
	i, j := x.from, y.from
	for ; i < x.to && j < y.to; i, j = i+1, j+1 {
		if a, b := x.digit(i), y.digit(j); a != b {
			return cmp3(a, b)
		}
	}
	return cmp3(x.to-i, y.to-j) // the one with digits left is larger
}

func cmp3[T int | int64 | byte](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpDec(x, y *dec) int {
	xn, yn := x.neg && !x.zero(), y.neg && !y.zero()
	switch {
	case xn && !yn:
		return -1
	case !xn && yn:
		return 1
	case xn:
		return -cmpAbs(x, y)
	}
	return cmpAbs(x, y)
}

// Cmp compares the values of two JSON number literals exactly: -1, 0 or +1;
// ok is false when either is no literal of JSON's grammar (or has an exponent
// past ±2^60).
func Cmp(a, b string) (c int, ok bool) {
	x, ok1 := parse(a)
	y, ok2 := parse(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	return cmpDec(&x, &y), true
}

// Count is a count a message states: a JSON number literal that is an integer
// (IsInteger) and not negative, read exactly.
type Count struct{ d dec }

// ParseCount reads lit as a count; ok is false for a literal that is not an
// integer as the schemas read it (IsInteger) or is negative.
func ParseCount(lit string) (Count, bool) {
	d, ok := parse(lit)
	if !ok || (d.neg && !d.zero()) || !IsInteger(lit) {
		return Count{}, false
	}
	return Count{d}, true
}

// Cmp compares two counts exactly.
func (x Count) Cmp(y Count) int { return cmpAbs(&x.d, &y.d) }

// Add returns x + y exactly. Its digits are written out from the smaller
// one's lowest significant digit up: an integer's exponent is at most 10^6
// as IsInteger reads it, so the sum has at most the literals' length and a
// million digits.
func (x Count) Add(y Count) Count {
	switch {
	case x.d.zero():
		return y
	case y.d.zero():
		return x
	}
	// Each is D × 10^e, D its significant digits and e = point - len(D).
	ex, ey := x.d.point-int64(x.d.to-x.d.from), y.d.point-int64(y.d.to-y.d.from)
	e0 := min(ex, ey)
	// The digits of x and y in units of 10^e0, least significant first.
	xs, ys := x.d.digitsFrom(ex-e0), y.d.digitsFrom(ey-e0)
	n := max(len(xs), len(ys)) + 1
	sum := make([]byte, n)
	carry := byte(0)
	for i := 0; i < n; i++ {
		s := carry
		if i < len(xs) {
			s += xs[i]
		}
		if i < len(ys) {
			s += ys[i]
		}
		sum[n-1-i], carry = '0'+s%10, s/10
	}
	lit := strings.TrimLeft(string(sum), "0")
	if e0 != 0 {
		lit += "e" + strconv.FormatInt(e0, 10)
	}
	d, _ := parse(lit)
	return Count{d}
}

// digitsFrom returns d's significant digits as values (not characters), least
// significant first, after pad zeros.
func (d *dec) digitsFrom(pad int64) []byte {
	out := make([]byte, pad, pad+int64(d.to-d.from))
	for i := d.to - 1; i >= d.from; i-- {
		out = append(out, d.digit(i)-'0')
	}
	return out
}

// String is the count in decimal digits when it has at most max of them, else
// "" (a count of a million digits is not for a message).
func (x Count) String(max int) string {
	if x.d.zero() {
		return "0"
	}
	if x.d.point > int64(max) {
		return ""
	}
	var b strings.Builder
	for i := x.d.from; i < x.d.to; i++ {
		b.WriteByte(x.d.digit(i))
	}
	for i := int64(x.d.to - x.d.from); i < x.d.point; i++ {
		b.WriteByte('0')
	}
	return b.String()
}
