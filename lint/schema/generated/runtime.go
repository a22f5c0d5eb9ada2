// Package generated holds Go validators generated from aopkit's JSON Schemas by
// internal/schemagen (`go generate ./lint/schema/generated`). A validator answers
// Valid or Invalid exactly as gojsonschema, the validator of record, would, and
// Unsure where it does not decide (formats, numbers it cannot compare exactly
// without big arithmetic): lint/schema then validates with lint/schema/draft7,
// which writes every diagnostic as gojsonschema does. A test fails when the
// checked-in code is not what the generator makes of the schemas; a differential
// test and a fuzz target hold the verdicts to gojsonschema's.
package generated

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint/internal/numlit"
	"github.com/aopkit/aopkit/lint/jsonread"
)

//go:generate go run github.com/aopkit/aopkit/internal/schemagen/cmd/schemagen -o validators.go

// Verdict is a generated validator's answer.
type Verdict int8

const (
	Invalid Verdict = iota // gojsonschema reports at least one error
	Valid                  // gojsonschema reports none
	Unsure                 // not decided here: ask lint/schema/draft7
)

// Validate returns the verdict of the schema file (a path within schemas.FS) on
// root; Unsure for a file without a generated validator.
func Validate(file string, n *jsonread.Node) Verdict {
	f := root(file)
	if f == nil || n == nil {
		return Unsure
	}
	return f(n)
}

// Has reports whether file has a generated validator.
func Has(file string) bool { return root(file) != nil }

//lint:ignore U1000 schemagen emits calls to it for a schema with "not"; none has one today
func not(v Verdict) Verdict {
	switch v {
	case Valid:
		return Invalid
	case Invalid:
		return Valid
	}
	return Unsure
}

//lint:ignore U1000 schemagen emits calls to it for a schema with "anyOf"; none has one today
func anyOf(n *jsonread.Node, fs ...func(*jsonread.Node) Verdict) Verdict {
	r := Invalid
	for _, f := range fs {
		switch f(n) {
		case Valid:
			return Valid
		case Unsure:
			r = Unsure
		}
	}
	return r
}

func oneOf(n *jsonread.Node, fs ...func(*jsonread.Node) Verdict) Verdict {
	valid, unsure := 0, 0
	for _, f := range fs {
		switch f(n) {
		case Valid:
			valid++
		case Unsure:
			unsure++
		}
	}
	switch {
	case valid > 1:
		return Invalid
	case unsure > 0:
		return Unsure
	case valid == 1:
		return Valid
	}
	return Invalid
}

func ifThenElse(n *jsonread.Node, cond, then, els func(*jsonread.Node) Verdict) Verdict {
	switch cond(n) {
	case Valid:
		if then != nil {
			return then(n)
		}
	case Invalid:
		if els != nil {
			return els(n)
		}
	default:
		return Unsure
	}
	return Valid
}

// Type bits of the "type" keyword.
const (
	typeNull = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeString
	typeInteger
)

func typeIs(n *jsonread.Node, mask int) Verdict {
	var bit int
	switch n.Kind {
	case jsonread.Null:
		bit = typeNull
	case jsonread.Bool:
		bit = typeBoolean
	case jsonread.Object:
		bit = typeObject
	case jsonread.Array:
		bit = typeArray
	case jsonread.String:
		bit = typeString
	case jsonread.Number:
		if mask&typeNumber != 0 {
			return Valid
		}
		if mask&typeInteger == 0 {
			return Invalid
		}
		return isInteger(n.Str)
	}
	if mask&bit != 0 {
		return Valid
	}
	return Invalid
}

// isInteger says whether a JSON number literal is an integer, as big.Rat's IsInt
// says for gojsonschema (numlit.IsInteger).
func isInteger(lit string) Verdict {
	// Nearly every literal a schema asks this of is plain digits: one pass
	// tells, and the cuts below are for a fraction or an exponent.
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c == '.' || c == 'e' || c == 'E' {
			return isIntegerCut(lit)
		}
	}
	return Valid
}

// isIntegerCut is isInteger of a literal with a '.', 'e' or 'E'. One with an
// exponent numlit reads from its digits (no big.Rat, no hand-over to draft7).
func isIntegerCut(lit string) Verdict {
	if strings.ContainsAny(lit, "eE") {
		if numlit.IsInteger(lit) {
			return Valid
		}
		return Invalid
	}
	_, frac, ok := strings.Cut(lit, ".")
	if !ok || strings.Trim(frac, "0") == "" {
		return Valid
	}
	return Invalid
}

// runesUnder reports whether s has fewer than min runes (minLength), counting
// them only when its length does not tell: a rune is 1 to 4 bytes (an invalid
// byte is a rune of its own), so s has at most len(s) runes and at least a
// quarter of that.
func runesUnder(s string, min int) bool {
	switch {
	case len(s) < min:
		return true
	case (len(s)+3)/4 >= min:
		return false
	}
	return utf8.RuneCountInString(s) < min
}

// runesOver reports whether s has more than max runes (maxLength), counting them
// only when its length does not tell (see runesUnder).
func runesOver(s string, max int) bool {
	switch {
	case len(s) <= max:
		return false
	case (len(s)+3)/4 > max:
		return true
	}
	return utf8.RuneCountInString(s) > max
}

// scalar is one value of a const or an enum.
type scalar struct {
	kind jsonread.Kind
	s    string
	f    float64
	b    bool
}

// negZero is -0, which schemagen writes for a const or an enum of -0 (a Go
// literal -0 is the constant 0; gojsonschema tells -0 from 0).
//
//lint:ignore U1000 schemagen emits it for a const or enum of -0; none has one today
var negZero = math.Copysign(0, -1)

// oneOfScalars compares as gojsonschema does: both sides marshalled after a decode
// without UseNumber, so numbers compare as float64 values (1.0 equals 1).
func oneOfScalars(n *jsonread.Node, vals []scalar) Verdict {
	r := Invalid
	for i := range vals {
		v := &vals[i]
		if v.kind != n.Kind {
			continue
		}
		switch n.Kind {
		case jsonread.Null:
			return Valid
		case jsonread.Bool:
			if n.Bool == v.b {
				return Valid
			}
		case jsonread.String:
			if n.Str == v.s {
				return Valid
			}
		case jsonread.Number:
			f, err := strconv.ParseFloat(n.Str, 64)
			if err != nil || math.IsInf(f, 0) {
				r = Unsure
				continue
			}
			if math.Float64bits(f) == math.Float64bits(v.f) {
				return Valid
			}
			if f == v.f { // 0 and -0 marshal differently
				r = Unsure
			}
		}
	}
	return r
}

// bound is a minimum or maximum, written by the generator.
type bound struct {
	i     int64 // the bound when isInt
	isInt bool
	f     float64 // the bound as a float64, when exact
	exact bool
}

// cmp compares a number literal with the bound: -1, 0 or +1, and false when it
// cannot tell without big arithmetic.
func (b *bound) cmp(lit string) (int, bool) {
	if b.isInt {
		if i, ok := smallInt(lit); ok {
			return b.cmpInt(i), true
		}
		if c, ok := b.cmpDecimal(lit); ok {
			return c, true
		}
	}
	return b.cmpParsed(lit)
}

// cmpDecimal compares with an integer bound B a literal of an optional '-',
// 1 to 18 digits, '.' and digits (a fraction such as 0.33, which cmpParsed
// would read with strconv), exactly; false for any other literal. The literal
// is x+F or x-F, with x its integer part (signed) and 0 <= F < 1, F > 0 when a
// digit of the fraction is not 0:
//   - F = 0: the value is x;
//   - x+F: above B when x >= B, else below it (x <= B-1, and F < 1);
//   - x-F: below B when x <= B, else above it (x >= B+1, and F < 1).
func (b *bound) cmpDecimal(lit string) (int, bool) {
	ip, frac, ok := strings.Cut(lit, ".")
	if !ok || frac == "" {
		return 0, false
	}
	x, ok := smallInt(ip)
	if !ok {
		return 0, false
	}
	nonzero := false
	for j := 0; j < len(frac); j++ {
		c := frac[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		nonzero = nonzero || c != '0'
	}
	c := b.cmpInt(x)
	switch {
	case !nonzero:
		return c, true
	case ip[0] == '-': // x-F (x may be -0)
		if c <= 0 {
			return -1, true
		}
		return 1, true
	case c >= 0:
		return 1, true
	}
	return -1, true
}

// cmpInt compares i with an integer bound.
func (b *bound) cmpInt(i int64) int {
	switch {
	case i < b.i:
		return -1
	case i > b.i:
		return 1
	}
	return 0
}

// smallInt reads a literal under 19 bytes of an optional '-' and decimal digits
// (what cmpParsed gives strconv.ParseInt); false for any other.
func smallInt(lit string) (int64, bool) {
	if len(lit) >= 19 {
		return 0, false
	}
	s := lit
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	if len(s) < len(lit) {
		v = -v
	}
	return v, true
}

// cmpParsed is cmp of a literal smallInt does not read, by strconv.
func (b *bound) cmpParsed(lit string) (int, bool) {
	if b.isInt && len(lit) < 19 && !strings.ContainsAny(lit, ".eE") {
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return b.cmpInt(i), true
		}
	}
	if !b.exact {
		return 0, false
	}
	// Rounding to float64 is monotonic and the bound is exact: a strict order of
	// the rounded value is the order of the value itself.
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	switch {
	case f < b.f:
		return -1, true
	case f > b.f:
		return 1, true
	}
	return 0, false
}

// dfa is a pattern anchored at both ends (^…$) as a deterministic automaton over
// classes of runes, which schemagen makes from the program of Go's regexp
// package: one table step per rune. Runes are decoded as regexp does (an invalid
// byte is U+FFFD); TestDFAsMatchTheirRegexp and FuzzDFAs hold every automaton
// equal to its regexp.
type dfa struct {
	pattern string
	ascii   [128]uint8 // the class of each ASCII rune
	ranges  []dfaRange // the classes of the other runes (a rune in none: class 0)
	nclass  int
	next    []uint8 // next[state*nclass+class]: state 0 is dead, 1 the start
	accept  []bool  // accept[state]

	// step[state<<8|b] is the state after the byte b: next of the class of b
	// when b is ASCII; for any other byte, other, a state of its own (one row
	// past the automaton's) that every byte keeps. One load per byte. Made by
	// init for the generated automata (dfas); nil for one made by hand,
	// matched by classes.
	step  []uint8
	other int
}

func init() {
	for _, d := range dfas {
		d.makeStep()
	}
}

// makeStep makes d.step and d.other from d.ascii and d.next.
func (d *dfa) makeStep() {
	d.other = len(d.accept)
	if d.other > 255 {
		return // other would not fit a byte: matched by classes
	}
	step := make([]uint8, (d.other+1)<<8)
	for st := 0; st <= d.other; st++ {
		for b := 0; b < 256; b++ {
			next := d.other
			if st < d.other && b < utf8.RuneSelf {
				next = int(d.next[st*d.nclass+int(d.ascii[b])])
			}
			step[st<<8|b] = uint8(next)
		}
	}
	d.step = step
}

type dfaRange struct {
	lo, hi rune
	class  uint8
}

// match reports whether the whole of s matches the pattern.
func (d *dfa) match(s string) bool {
	step := d.step
	if step == nil {
		return d.matchClasses(s)
	}
	// The dead state (0) steps to itself on every ASCII byte and other on the
	// rest, which keeps it, so the loop tests for neither: a string that fails
	// ends in 0 (accept[0] is false), one with a byte that is not ASCII in
	// other, and is matched again by classes (runes decoded).
	st := 1
	for i := 0; i < len(s); i++ {
		st = int(step[st<<8|int(s[i])])
	}
	if st == d.other {
		return d.matchClasses(s)
	}
	return d.accept[st]
}

// runeClass is the class of a rune that is not ASCII (0 when no range has it).
func (d *dfa) runeClass(r rune) uint8 {
	for _, rr := range d.ranges {
		if r >= rr.lo && r <= rr.hi {
			return rr.class
		}
	}
	return 0
}

// matchClasses is match by the class of each rune: the automaton as schemagen
// writes it (TestDFAsMatchTheirRegexp holds match's step table to it).
func (d *dfa) matchClasses(s string) bool {
	st := 1
	for i := 0; i < len(s); {
		var class uint8
		if c := s[i]; c < utf8.RuneSelf {
			class = d.ascii[c]
			i++
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			i += w
			class = d.runeClass(r)
		}
		if st = int(d.next[st*d.nclass+int(class)]); st == 0 {
			return false
		}
	}
	return d.accept[st]
}

// lazyRegexp compiles a pattern on first use, as gojsonschema does with regexp
// (for a pattern schemagen makes no automaton of).
//
//lint:ignore U1000 schemagen emits calls to it for a pattern it makes no dfa of; none has one today
func lazyRegexp(p string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(p) })
}

// Shape is what a schema says of the members of its objects, through $ref, allOf,
// anyOf and oneOf (see Members): the members "properties" defines, each with the
// shape of its value, whether "additionalProperties": true admits any other, and
// the shape of an array's items. nil: nothing to check.
type Shape struct {
	Object bool   // the schema defines properties: Props lists every member it knows
	Open   bool   // "additionalProperties": true
	Props  []Prop // sorted by Key
	Items  *Shape
	// find is schemagen's search of Props: the index of a key, -1 when it is
	// not one (a switch on the key, see internal/schemagen findOf). nil (a
	// Shape made by hand): Member searches Props by halves.
	find func(key string) int
}

// Prop is a member a Shape knows, and the shape of its value (nil: nothing to
// check below it).
type Prop struct {
	Key   string
	Shape *Shape
}

// Member reports whether s knows the member key, and the shape of its value.
func (s *Shape) Member(key string) (*Shape, bool) {
	if i := s.Find()(key); i >= 0 {
		return s.Props[i].Shape, true
	}
	return nil, false
}

// Find returns the search of s's props: the index in Props of a key, -1 when
// it is not one. A walk over an object's members takes it once for the object
// (Member is one more call per member).
func (s *Shape) Find() func(key string) int {
	if s.find != nil {
		return s.find
	}
	return s.indexByHalves
}

// indexByHalves is the search of a shape without find (made by hand).
func (s *Shape) indexByHalves(key string) int {
	lo, hi := 0, len(s.Props)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.Props[m].Key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.Props) && s.Props[lo].Key == key {
		return lo
	}
	return -1
}
