package schemagen

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxDFAStates bounds the states of a pattern's automaton (a state is a byte).
const maxDFAStates = 255

// patternDFA is a "pattern" anchored at both ends (^…$) as a deterministic
// automaton over classes of runes, made from the program Go's regexp package
// compiles it to: matching a string is one table step per rune, where the regexp
// runs its one-pass or backtracking machine. Class 0 of the runes is the runes
// no instruction of the pattern matches; state 0 is dead, state 1 the start.
type patternDFA struct {
	ascii  [utf8.RuneSelf]uint8 // the class of each ASCII rune
	ranges []runeRange          // the classes of the other runes, by range (absent: class 0)
	nclass int
	next   []uint8 // next[state*nclass+class]
	accept []bool  // accept[state]
}

type runeRange struct {
	lo, hi rune
	class  uint8
}

// buildDFA returns the automaton of pattern, or an error saying why it makes
// none (then the generated code keeps the regexp): a pattern not anchored at
// both ends, with other empty-width assertions, case folding of a class, or too
// many states.
func buildDFA(pattern string) (*patternDFA, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return nil, fmt.Errorf("not anchored by ^ and $")
	}
	mid := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[1 : len(re.Sub)-1]}
	if len(mid.Sub) == 0 {
		mid = &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	prog, err := syntax.Compile(mid.Simplify())
	if err != nil {
		return nil, err
	}
	// The boundaries of the rune ranges the instructions match: membership is
	// the same for every rune between two of them.
	bounds := []rune{0, unicode.MaxRune + 1}
	for i := range prog.Inst {
		in := &prog.Inst[i]
		switch in.Op {
		case syntax.InstEmptyWidth:
			return nil, fmt.Errorf("an assertion other than ^ at the start and $ at the end")
		case syntax.InstRune:
			if len(in.Rune) == 1 {
				// One rune, with case folding ([Tt]) every rune of its orbit.
				r := in.Rune[0]
				bounds = append(bounds, r, r+1)
				if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
					for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
						bounds = append(bounds, f, f+1)
					}
				}
				break
			}
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				return nil, fmt.Errorf("case folding of a class")
			}
			for j := 0; j+1 < len(in.Rune); j += 2 {
				bounds = append(bounds, in.Rune[j], in.Rune[j+1]+1)
			}
		case syntax.InstRune1:
			bounds = append(bounds, in.Rune[0], in.Rune[0]+1)
		case syntax.InstRuneAnyNotNL:
			bounds = append(bounds, '\n', '\n'+1)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	// Classes: the intervals whose runes every instruction treats alike.
	var runeInsts []int
	for i := range prog.Inst {
		switch prog.Inst[i].Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			runeInsts = append(runeInsts, i)
		}
	}
	d := &patternDFA{}
	classOf := map[string]int{strings.Repeat("0", len(runeInsts)): 0}
	var reps []rune // a rune of each class
	reps = append(reps, -1)
	for k := 0; k+1 < len(bounds); k++ {
		lo, hi := bounds[k], bounds[k+1]-1
		sig := make([]byte, len(runeInsts))
		for j, pc := range runeInsts {
			sig[j] = '0'
			if prog.Inst[pc].MatchRune(lo) {
				sig[j] = '1'
			}
		}
		c, ok := classOf[string(sig)]
		if !ok {
			c = len(reps)
			classOf[string(sig)] = c
			reps = append(reps, lo)
		} else if c == 0 && reps[0] < 0 {
			reps[0] = lo
		}
		if c > 255 {
			return nil, fmt.Errorf("more than 256 classes of runes")
		}
		for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
			d.ascii[r] = uint8(c)
		}
		if hi >= utf8.RuneSelf && c != 0 {
			l := max(lo, utf8.RuneSelf)
			if n := len(d.ranges); n > 0 && d.ranges[n-1].hi+1 == l && d.ranges[n-1].class == uint8(c) {
				d.ranges[n-1].hi = hi
			} else {
				d.ranges = append(d.ranges, runeRange{l, hi, uint8(c)})
			}
		}
	}
	d.nclass = len(reps)
	// Subset construction: a state is the set of rune instructions (and Match)
	// reachable without reading a rune.
	closure := func(pcs []uint32) []uint32 {
		var out []uint32
		seen := map[uint32]bool{}
		var walk func(pc uint32)
		walk = func(pc uint32) {
			if seen[pc] {
				return
			}
			seen[pc] = true
			in := &prog.Inst[pc]
			switch in.Op {
			case syntax.InstAlt, syntax.InstAltMatch:
				walk(in.Out)
				walk(in.Arg)
			case syntax.InstCapture, syntax.InstNop:
				walk(in.Out)
			case syntax.InstFail:
			default:
				out = append(out, pc)
			}
		}
		for _, pc := range pcs {
			walk(pc)
		}
		slices.Sort(out)
		return out
	}
	key := func(s []uint32) string { return fmt.Sprint(s) }
	states := [][]uint32{nil, closure([]uint32{uint32(prog.Start)})}
	index := map[string]int{key(nil): 0, key(states[1]): 1}
	for s := 1; s < len(states); s++ {
		acc := false
		for _, pc := range states[s] {
			if prog.Inst[pc].Op == syntax.InstMatch {
				acc = true
			}
		}
		d.accept = append(d.accept, acc)
		for c := 0; c < d.nclass; c++ {
			var to []uint32
			if reps[c] >= 0 {
				for _, pc := range states[s] {
					if in := &prog.Inst[pc]; in.Op != syntax.InstMatch && in.MatchRune(reps[c]) {
						to = append(to, in.Out)
					}
				}
			}
			to = closure(to)
			t, ok := index[key(to)]
			if !ok {
				t = len(states)
				if t > maxDFAStates {
					return nil, fmt.Errorf("more than %d states", maxDFAStates)
				}
				index[key(to)] = t
				states = append(states, to)
			}
			d.next = append(d.next, uint8(t))
		}
	}
	// State 0 (dead) has no row yet: put one in front, all dead.
	d.next = append(make([]uint8, d.nclass), d.next...)
	d.accept = append([]bool{false}, d.accept...)
	return d, nil
}

// literal is the Go expression of the automaton, a *dfa of package generated.
func (d *patternDFA) literal(pattern string) string {
	return fmt.Sprintf("&dfa{pattern: %q, nclass: %d,\nascii: [128]uint8{%s},\nranges: []dfaRange{%s},\nnext: []uint8{%s},\naccept: []bool{%s}}",
		pattern, d.nclass,
		joinOf(d.ascii[:], func(c uint8) string { return fmt.Sprint(c) }),
		joinOf(d.ranges, func(r runeRange) string { return fmt.Sprintf("{%#x, %#x, %d}", r.lo, r.hi, r.class) }),
		joinOf(d.next, func(t uint8) string { return fmt.Sprint(t) }),
		joinOf(d.accept, func(a bool) string { return fmt.Sprint(a) }))
}

// joinOf joins the elements of xs, each written by f, with ", ".
func joinOf[T any](xs []T, f func(T) string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return strings.Join(out, ", ")
}
