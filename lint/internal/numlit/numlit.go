// Package numlit tells whether a JSON number literal is an integer exactly as
// gojsonschema does (big.Rat's SetString, then IsInt), mostly from its digits:
// big.Rat builds a power of ten as long as the exponent (1e999999: 20 ms).
// The generated validators and draft7 both ask it (lint/schema).
package numlit

import (
	"math/big"
	"strconv"
	"strings"
)

// IsInteger reports whether lit is an integer as big.Rat's SetString and IsInt
// say: at once for an optional '-' and decimal digits (the literal of nearly
// every integer), from the digits for any other literal of JSON's grammar, by
// big.Rat for the rest.
func IsInteger(lit string) bool {
	s := strings.TrimPrefix(lit, "-")
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] >= '0' && s[i] <= '9'
	}
	if plain {
		return true
	}
	if isInt, ok := decimal(lit); ok {
		return isInt
	}
	q, ok := new(big.Rat).SetString(lit)
	return ok && q.IsInt()
}

// decimal is big.Rat's SetString and IsInt of a JSON number literal
// (optional '-', digits, optional '.' and digits, optional exponent), told from
// its digits. The value is D*10^e5, D the digits without the point and e5 the
// exponent less the digits after the point; big.Rat reads 0 whatever e5, and
// refuses |e5| > 1e6 (not an integer, then). ok is false for a literal it does
// not read (not JSON's grammar, or an exponent beyond int64): big.Rat tells.
func decimal(lit string) (isInt, ok bool) {
	s := strings.TrimPrefix(lit, "-")
	mant, expPart, hasExp := strings.Cut(s, "e")
	if !hasExp {
		mant, expPart, hasExp = strings.Cut(s, "E")
	}
	var exp int64
	if hasExp {
		ds := expPart
		if ds != "" && (ds[0] == '+' || ds[0] == '-') {
			ds = ds[1:]
		}
		if ds == "" || strings.TrimLeft(ds, "0123456789") != "" {
			return false, false
		}
		e, err := strconv.ParseInt(strings.TrimPrefix(expPart, "+"), 10, 64)
		if err != nil {
			return false, false
		}
		exp = e
	}
	ip, frac, dot := strings.Cut(mant, ".")
	if ip == "" || dot && frac == "" {
		return false, false
	}
	digits := ip + frac
	zero := true
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return false, false
		}
		zero = zero && c == '0'
	}
	if zero {
		return true, true
	}
	e5 := exp - int64(len(frac))
	if e5 > 1e6 || e5 < -1e6 {
		return false, true
	}
	if e5 >= 0 {
		return true, true
	}
	tz := int64(len(digits) - len(strings.TrimRight(digits, "0")))
	return tz >= -e5, true
}
