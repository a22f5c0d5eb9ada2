package draft7

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint/internal/numlit"
)

// Error is one violation, as gojsonschema reports it.
type Error struct {
	Type        string   // gojsonschema's error type: "required", "invalid_type", ...
	Path        []string // where: the member names and item indexes from the root
	Property    string   // required, additional_property_not_allowed: the member
	Allowed     string   // enum, const: the allowed values as gojsonschema writes them
	Description string   // gojsonschema's description of the error
}

// Validate checks doc, a decoded JSON value (objects map[string]any, arrays
// []any, numbers json.Number, as jsonread.Node.Interface gives them), and returns
// its errors in gojsonschema's order.
func (s *Schema) Validate(doc any) []Error {
	var r result
	s.root.validate(doc, &r, &jsonContext{head: "(root)"})
	return r.errors
}

// jsonContext is where a value is: a persistent list of path tokens, innermost
// first (gojsonschema's JsonContext). A value's context is made on the stack of
// the check of its parent: it is read (Error.Path) while the value is checked,
// never kept. It is declared out of the parent's loop over its values: one made
// in the loop would be put on the heap (the compiler sees its address reach the
// context of the recursive check, which outlives an iteration).
type jsonContext struct {
	head string
	tail *jsonContext
}

// path is the tokens below the root. Each is a copy: a token kept in an Error
// would make the compiler keep every context on the heap (it does not tell a
// context's token from its tail), where they now stay on the stack.
func (c *jsonContext) path() []string {
	n := 0
	for x := c; x.tail != nil; x = x.tail {
		n++
	}
	out := make([]string, n)
	for x := c; x.tail != nil; x = x.tail {
		n--
		out[n] = strings.Clone(x.head)
	}
	return out
}

// field is gojsonschema's {{.field}}: "(root)" or the tokens joined by dots.
func (c *jsonContext) field() string {
	if c.tail == nil {
		return c.head
	}
	return strings.Join(c.path(), ".")
}

// result is gojsonschema's Result: the errors and the score by which the closest
// anyOf/oneOf branch is chosen.
//
// A quiet result only tells whether the value is valid (failed), for the checks
// that ask no more of a branch (whether an anyOf or oneOf branch, a not or an
// if holds): no Error is written, and no score kept. Its violations are found
// by the same checks, so it is valid exactly when the full result would be.
type result struct {
	errors []Error
	score  int
	quiet  bool
	failed bool // quiet: a violation was found
}

func (r result) valid() bool { return len(r.errors) == 0 && !r.failed }

// loud reports whether a violation is to be written as an Error (the caller
// then calls add); for a quiet result it notes the violation and is false.
func (r *result) loud() bool {
	if r.quiet {
		r.failed = true
		return false
	}
	return true
}

func (r *result) add(e Error, ctx *jsonContext) {
	e.Path = ctx.path()
	r.errors = append(r.errors, e)
	r.score -= 2 // a net -1 with the +1 at the end of the check
}

func (r *result) merge(o result) {
	r.errors = append(r.errors, o.errors...)
	r.score += o.score
	if o.failed {
		r.failed = true
	}
}

// sub makes *into the result of n on v alone, quiet or not. The caller's
// result (like a context, see jsonContext) is declared out of its loops.
func (n *node) sub(v any, ctx *jsonContext, into *result, quiet bool) {
	*into = result{quiet: quiet}
	n.validate(v, into, ctx)
}

func (n *node) typed() bool { return len(n.types) > 0 }

func (n *node) hasType(t string) bool {
	for _, x := range n.types {
		if x == t {
			return true
		}
	}
	return false
}

func (n *node) typeString() string {
	if len(n.types) > 1 {
		return "[" + strings.Join(n.types, ",") + "]"
	}
	return n.types[0]
}

func (n *node) typeError(given string, r *result, ctx *jsonContext) {
	r.add(Error{Type: "invalid_type", Description: "Invalid type. Expected: " + n.typeString() + ", given: " + given}, ctx)
}

// validate is gojsonschema's validateRecursive.
func (n *node) validate(v any, r *result, ctx *jsonContext) {
	if n.pass != nil {
		if !*n.pass && r.loud() {
			r.add(Error{Type: "false", Description: "False always fails validation"}, ctx)
		}
		return
	}
	if n.ref != nil {
		n.ref.validate(v, r, ctx)
		return
	}
	var given string // the value's type, as gojsonschema names it
	switch x := v.(type) {
	case nil:
		given = "null"
	case json.Number:
		given = "number"
		if isInteger(x) {
			given = "integer"
		}
	case []any:
		given = "array"
	case map[string]any:
		given = "object"
	case bool:
		given = "boolean"
	case string:
		given = "string"
	default:
		panic(fmt.Sprintf("draft7: a %T is not a decoded JSON value", v))
	}
	if n.typed() && !n.hasType(given) && !(given == "integer" && n.hasType("number")) {
		if r.loud() {
			n.typeError(given, r, ctx)
		}
		return
	}
	// gojsonschema's order of checks for each type.
	n.validateSchema(v, r, ctx)
	switch x := v.(type) {
	case json.Number:
		n.validateNumber(x, r, ctx)
		n.validateCommon(v, r, ctx)
	case []any:
		n.validateArray(x, r, ctx)
		n.validateCommon(v, r, ctx)
	case map[string]any:
		n.validateObject(x, r, ctx)
		n.validateCommon(v, r, ctx)
		var in jsonContext
		for _, p := range n.properties {
			if c, ok := x[p.name]; ok {
				in = jsonContext{head: p.name, tail: ctx}
				p.n.validate(c, r, &in)
			}
		}
	case string:
		n.validateCommon(v, r, ctx)
		n.validateString(x, r, ctx)
	default:
		n.validateCommon(v, r, ctx)
	}
	r.score++
}

// isInteger reports whether a number literal is an integer as big.Rat's IsInt
// says (for gojsonschema): numlit.IsInteger.
func isInteger(x json.Number) bool { return numlit.IsInteger(string(x)) }

func (n *node) validateSchema(v any, r *result, ctx *jsonContext) {
	// Whether a branch of anyOf or oneOf holds is asked of a quiet result;
	// gojsonschema's errors of the closest branch, which it adds when none
	// holds, are then found again with their score (an anyOf stops at the first
	// branch that holds: the errors of those before it are dropped).
	var sr result
	if len(n.anyOf) > 0 {
		ok := false
		for _, s := range n.anyOf {
			if s.sub(v, ctx, &sr, true); sr.valid() {
				ok = true
				break
			}
		}
		if !ok && r.loud() {
			r.add(Error{Type: "number_any_of", Description: "Must validate at least one schema (anyOf)"}, ctx)
			r.merge(closest(n.anyOf, v, ctx))
		}
	}
	if len(n.oneOf) > 0 {
		valid := 0
		for _, s := range n.oneOf {
			if s.sub(v, ctx, &sr, true); sr.valid() {
				valid++
			}
		}
		if valid != 1 && r.loud() {
			r.add(Error{Type: "number_one_of", Description: "Must validate one and only one schema (oneOf)"}, ctx)
			if valid == 0 {
				r.merge(closest(n.oneOf, v, ctx))
			}
		}
	}
	if len(n.allOf) > 0 {
		valid := 0
		for _, s := range n.allOf {
			if s.sub(v, ctx, &sr, r.quiet); sr.valid() {
				valid++
			}
			r.merge(sr)
		}
		if valid != len(n.allOf) && r.loud() {
			r.add(Error{Type: "number_all_of", Description: "Must validate all the schemas (allOf)"}, ctx)
		}
	}
	if n.not != nil {
		if n.not.sub(v, ctx, &sr, true); sr.valid() && r.loud() {
			r.add(Error{Type: "number_not", Description: "Must not validate the schema (not)"}, ctx)
		}
	}
	if n.ifN != nil {
		n.ifN.sub(v, ctx, &sr, true)
		ifValid := sr.valid()
		if n.thenN != nil && ifValid {
			if n.thenN.sub(v, ctx, &sr, r.quiet); !sr.valid() && r.loud() {
				r.add(Error{Type: "condition_then", Description: `Must validate "then" as "if" was valid`}, ctx)
				r.merge(sr)
			}
		}
		if n.elseN != nil && !ifValid {
			if n.elseN.sub(v, ctx, &sr, r.quiet); !sr.valid() && r.loud() {
				r.add(Error{Type: "condition_else", Description: `Must validate "else" as "if" was not valid`}, ctx)
				r.merge(sr)
			}
		}
	}
	r.score++
}

// closest is the result of the branch of anyOf or oneOf with the highest score
// (the first of those), when none holds: the one whose errors gojsonschema
// reports.
func closest(branches []*node, v any, ctx *jsonContext) result {
	var sr, best result
	for i, s := range branches {
		if s.sub(v, ctx, &sr, false); i == 0 || sr.score > best.score {
			best = sr
		}
	}
	return best
}

func (n *node) validateCommon(v any, r *result, ctx *jsonContext) {
	// gojsonschema compares canonical forms (marshalWithoutNumber): a valid UTF-8
	// string's is unique to it and never that of a non-string, so a string is
	// compared as itself; anything else (a number may not decode as a float64)
	// takes gojsonschema's way.
	if n.constJSON == nil && len(n.enum) == 0 {
		r.score++
		return
	}
	str, isStr := v.(string)
	isStr = isStr && utf8.ValidString(str)
	if n.constJSON != nil {
		if isStr {
			if (n.constStr == nil || str != *n.constStr) && r.loud() {
				r.add(Error{Type: "const", Allowed: *n.constJSON, Description: ctx.field() + " does not match: " + *n.constJSON}, ctx)
			}
		} else if js, err := marshalWithoutNumber(v); (err != nil || *js != *n.constJSON) && r.loud() {
			// A value with a number out of float64's range has no canonical form
			// (gojsonschema reports an internal error and panics on it): it is
			// none of the schema's values, whose forms exist.
			r.add(Error{Type: "const", Allowed: *n.constJSON, Description: ctx.field() + " does not match: " + *n.constJSON}, ctx)
		}
	}
	if len(n.enum) > 0 {
		found := false
		if isStr {
			found = n.enumStrs[str]
		} else if js, err := marshalWithoutNumber(v); err == nil {
			for _, e := range n.enum {
				if e == *js {
					found = true
					break
				}
			}
		}
		if !found && r.loud() {
			allowed := strings.Join(n.enum, ", ")
			r.add(Error{Type: "enum", Allowed: allowed, Description: ctx.field() + " must be one of the following: " + allowed}, ctx)
		}
	}
	r.score++
}

func (n *node) validateArray(v []any, r *result, ctx *jsonContext) {
	if n.items != nil {
		var in jsonContext
		var sr result
		for i := range v {
			in = jsonContext{head: strconv.Itoa(i), tail: ctx}
			n.items.sub(v[i], &in, &sr, r.quiet)
			r.merge(sr)
		}
	}
	if n.minItems != nil && len(v) < *n.minItems && r.loud() {
		r.add(Error{Type: "array_min_items", Description: fmt.Sprintf("Array must have at least %d items", *n.minItems)}, ctx)
	}
	if n.maxItems != nil && len(v) > *n.maxItems && r.loud() {
		r.add(Error{Type: "array_max_items", Description: fmt.Sprintf("Array must have at most %d items", *n.maxItems)}, ctx)
	}
	r.score++
}

func (n *node) validateObject(v map[string]any, r *result, ctx *jsonContext) {
	for _, req := range n.required {
		if _, ok := v[req]; ok {
			r.score++
		} else if r.loud() {
			r.add(Error{Type: "required", Property: req, Description: req + " is required"}, ctx)
		}
	}
	if n.additional != nil {
		// gojsonschema walks the members in Go's map order; its findings are
		// sorted by path afterwards, so the order here does not show. The
		// members "properties" does not declare, sorted (none, nearly always).
		var others []string
		for k := range v {
			if !n.declares(k) {
				others = append(others, k)
			}
		}
		sort.Strings(others)
		var in jsonContext
		var sr result
		for _, k := range others {
			switch a := n.additional.(type) {
			case bool:
				if !a && r.loud() {
					r.add(Error{Type: "additional_property_not_allowed", Property: k, Description: "Additional property " + k + " is not allowed"}, ctx)
				}
			case *node:
				in = jsonContext{head: k, tail: ctx}
				a.sub(v[k], &in, &sr, r.quiet)
				r.merge(sr)
			}
		}
	}
	r.score++
}

func (n *node) declares(k string) bool {
	for _, p := range n.properties {
		if p.name == k {
			return true
		}
	}
	return false
}

func (n *node) validateString(v string, r *result, ctx *jsonContext) {
	if n.minLength != nil && utf8.RuneCountInString(v) < *n.minLength && r.loud() {
		r.add(Error{Type: "string_gte", Description: fmt.Sprintf("String length must be greater than or equal to %d", *n.minLength)}, ctx)
	}
	if n.maxLength != nil && utf8.RuneCountInString(v) > *n.maxLength && r.loud() {
		r.add(Error{Type: "string_lte", Description: fmt.Sprintf("String length must be less than or equal to %d", *n.maxLength)}, ctx)
	}
	if n.pattern != nil && !n.pattern.MatchString(v) && r.loud() {
		r.add(Error{Type: "pattern", Description: "Does not match pattern '" + n.pattern.String() + "'"}, ctx)
	}
	if n.format != "" && !isFormat(n.format, v) && r.loud() {
		r.add(Error{Type: "format", Description: "Does not match format '" + n.format + "'"}, ctx)
	}
	r.score++
}

// cmpNumber compares the number v, f as big.Rat reads it, with a bound. big.Rat
// refuses a literal whose decimal exponent is past a million (f nil; gojsonschema
// then panics): such a value is astronomically far from any bound a schema
// writes, and a big.Float of it compares right.
func cmpNumber(f *big.Rat, v json.Number, bound *big.Rat) int {
	if f != nil {
		return f.Cmp(bound)
	}
	x, _, err := big.ParseFloat(string(v), 10, 64, big.ToNearestEven)
	if err != nil {
		return 0
	}
	return x.Cmp(new(big.Float).SetRat(bound))
}

func (n *node) validateNumber(v json.Number, r *result, ctx *jsonContext) {
	if n.maximum == nil && n.minimum == nil && n.format == "" {
		r.score++ // nothing to check: no big.Rat made
		return
	}
	f, _ := new(big.Rat).SetString(string(v))
	if n.maximum != nil && cmpNumber(f, v, n.maximum) == 1 && r.loud() {
		r.add(Error{Type: "number_lte", Description: fmt.Sprint("Must be less than or equal to ", new(big.Float).SetRat(n.maximum))}, ctx)
	}
	if n.minimum != nil && cmpNumber(f, v, n.minimum) == -1 && r.loud() {
		r.add(Error{Type: "number_gte", Description: fmt.Sprint("Must be greater than or equal to ", new(big.Float).SetRat(n.minimum))}, ctx)
	}
	if n.format != "" && !isFormat(n.format, f) && r.loud() {
		r.add(Error{Type: "format", Description: "Does not match format '" + n.format + "'"}, ctx)
	}
	r.score++
}
