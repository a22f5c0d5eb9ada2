// Package draft7 validates JSON documents against draft-07 JSON Schemas and
// reports exactly the errors gojsonschema v1.2.0 (aopkit's validator of record)
// reports: the same error types, the same paths, the same descriptions, in the
// same order, with the same choice of the "closest" anyOf/oneOf branch. It exists
// so that aoplint does not link gojsonschema, whose HTTP loader brings net/http,
// crypto/tls and with them a dynamically linked binary (about 2 ms of start-up per
// run, measured in docs/benchmarks.md). Tests in lint/schema and lint/wrapped hold
// it to gojsonschema on fixtures, their mutants and fuzzed input.
//
// Only the keywords aopkit's schemas and the official MCP and A2A schemas use are
// implemented; Compile refuses any other validation keyword (and any format whose
// gojsonschema checker is not implemented here), so a schema change that needs
// more fails loudly, in tests, rather than validating differently.
package draft7

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// Set holds schema documents by URL and compiles schemas from them.
type Set struct {
	// Load, when set, gives a document the set does not hold yet (a $ref's
	// target) by its URL, decoded as Decode does.
	Load func(docURL string) (any, error)

	mu       sync.Mutex
	docs     map[string]any   // document URL (no fragment) → decoded with UseNumber
	compiled map[string]*node // absolute location (URL#pointer) → compiled node
}

// NewSet returns an empty set (as the zero Set is).
func NewSet() *Set { return &Set{} }

// init makes the maps of a zero Set; s.mu is held.
func (s *Set) init() {
	if s.docs == nil {
		s.docs, s.compiled = map[string]any{}, map[string]*node{}
	}
}

// Add decodes data (a schema document) and makes it available at docURL.
func (s *Set) Add(docURL string, data []byte) error {
	doc, err := Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", docURL, err)
	}
	s.AddValue(docURL, doc)
	return nil
}

// Decode decodes a schema document as Set.Add does: what encoding/json gives
// with UseNumber (the last of duplicate members wins), read by jsonread, which is
// faster.
func Decode(data []byte) (any, error) {
	root, _, err := jsonread.Parse(data)
	if err != nil {
		return nil, err
	}
	return root.Interface(), nil
}

// AddValue makes doc (decoded with json.Decoder.UseNumber) available at docURL.
func (s *Set) AddValue(docURL string, doc any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	s.docs[strings.TrimSuffix(docURL, "#")] = doc
}

// Schema is a compiled schema, safe for concurrent use.
type Schema struct{ root *node }

// Compile compiles the schema at location, an absolute URL of a document of the
// set with an optional fragment (a JSON Pointer), and every schema it refers to.
func (s *Set) Compile(location string) (*Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	n, err := s.ref(location)
	if err != nil {
		return nil, err
	}
	if loops(n) {
		return nil, fmt.Errorf("schema %s: a cycle of references applies it to the same value forever", location)
	}
	return &Schema{root: n}, nil
}

// loops reports whether validation from root can come back to a schema for the
// same value ($ref, anyOf, oneOf, allOf, not, if/then/else) without descending
// into a member or an item: it would never end.
func loops(root *node) bool {
	all := map[*node]bool{}
	var collect func(n *node)
	collect = func(n *node) {
		if n == nil || all[n] {
			return
		}
		all[n] = true
		for _, c := range n.same() {
			collect(c)
		}
		for _, c := range n.children() {
			collect(c)
		}
	}
	collect(root)
	state := map[*node]int{} // 1: on the path, 2: done
	var visit func(n *node) bool
	visit = func(n *node) bool {
		switch state[n] {
		case 1:
			return true
		case 2:
			return false
		}
		state[n] = 1
		for _, c := range n.same() {
			if visit(c) {
				return true
			}
		}
		state[n] = 2
		return false
	}
	for n := range all {
		if visit(n) {
			return true
		}
	}
	return false
}

// same are the schemas applied to the same value as n.
func (n *node) same() []*node {
	var out []*node
	for _, c := range []*node{n.ref, n.not, n.ifN, n.thenN, n.elseN} {
		if c != nil {
			out = append(out, c)
		}
	}
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	return append(out, n.allOf...)
}

// children are the schemas applied to n's members and items.
func (n *node) children() []*node {
	var out []*node
	for _, p := range n.properties {
		out = append(out, p.n)
	}
	if a, ok := n.additional.(*node); ok {
		out = append(out, a)
	}
	if n.items != nil {
		out = append(out, n.items)
	}
	return out
}

// node is one compiled schema.
type node struct {
	pass *bool // a boolean schema
	ref  *node // $ref: every other keyword is ignored

	types      []string
	properties []property
	additional any // nil (anything), bool or *node
	required   []string
	constJSON  *string
	constStr   *string // const, when a string: compared without marshalling
	enum       []string
	enumStrs   map[string]bool // the strings of enum: compared without marshalling
	pattern    *regexp.Regexp
	format     string
	minLength  *int
	maxLength  *int
	minItems   *int
	maxItems   *int
	minimum    *big.Rat
	maximum    *big.Rat
	items      *node
	anyOf      []*node
	oneOf      []*node
	allOf      []*node
	not        *node
	ifN        *node
	thenN      *node
	elseN      *node
}

type property struct {
	name string
	n    *node
}

// IsAnnotation reports whether a keyword is one that never changes a verdict.
func IsAnnotation(key string) bool {
	switch key {
	case "$schema", "$id", "title", "description", "$comment", "definitions", "$defs", "examples", "default":
		return true
	}
	return false
}

// ref compiles the schema at an absolute location (memoised: references may be
// cyclic).
func (s *Set) ref(location string) (*node, error) {
	docURL, frag, _ := strings.Cut(location, "#")
	key := docURL + "#" + frag
	if n, ok := s.compiled[key]; ok {
		return n, nil
	}
	doc, ok := s.docs[docURL]
	if !ok && s.Load != nil {
		var err error
		if doc, err = s.Load(docURL); err != nil {
			return nil, fmt.Errorf("schema %s: %w", docURL, err)
		}
		s.docs[docURL], ok = doc, true
	}
	if !ok {
		return nil, fmt.Errorf("schema %s: no such document", docURL)
	}
	v, err := pointer(doc, frag)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", location, err)
	}
	n := &node{}
	s.compiled[key] = n
	if err := s.compile(v, n, docURL); err != nil {
		delete(s.compiled, key)
		return nil, fmt.Errorf("schema %s: %w", location, err)
	}
	return n, nil
}

// pointer resolves a URI fragment holding a JSON Pointer in doc.
func pointer(doc any, frag string) (any, error) {
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, err
	}
	return Pointer(doc, frag)
}

// Pointer resolves the JSON Pointer ptr ("" or "/a/0/b", not URI-escaped) in doc,
// a document as Decode returns it.
func Pointer(doc any, ptr string) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("fragment %q is not a JSON Pointer", ptr)
	}
	v := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("no %q in %q", tok, ptr)
			}
			v = c
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("no item %q in %q", tok, ptr)
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("%q leads through a scalar", ptr)
		}
	}
	return v, nil
}

func (s *Set) sub(v any, base string) (*node, error) {
	n := &node{}
	return n, s.compile(v, n, base)
}

func (s *Set) subs(v any, base, key string) ([]*node, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s must be a non-empty array", key)
	}
	var out []*node
	for _, x := range list {
		n, err := s.sub(x, base)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func nonNegInt(v any, key string) (*int, error) {
	num, ok := v.(json.Number)
	if ok {
		if i, err := strconv.ParseInt(string(num), 10, 64); err == nil && i >= 0 {
			n := int(i)
			return &n, nil
		}
	}
	return nil, fmt.Errorf("%s must be a non-negative integer literal", key)
}

func number(v any, key string) (*big.Rat, error) {
	if num, ok := v.(json.Number); ok {
		if r, ok := new(big.Rat).SetString(string(num)); ok {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%s must be a number", key)
}

// compile fills n from the schema value v of the document at base.
func (s *Set) compile(v any, n *node, base string) error {
	if b, ok := v.(bool); ok {
		n.pass = &b
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("a schema must be an object or a boolean, not %T", v)
	}
	if r, ok := m["$ref"]; ok {
		ref, ok := r.(string)
		if !ok {
			return fmt.Errorf("$ref must be a string")
		}
		b, err := url.Parse(base)
		if err != nil {
			return err
		}
		u, err := url.Parse(ref)
		if err != nil {
			return err
		}
		target, err := s.ref(b.ResolveReference(u).String())
		if err != nil {
			return err
		}
		n.ref = target
		return nil // gojsonschema ignores a $ref's siblings
	}
	if id, ok := m["$id"].(string); ok && id != "" && !strings.HasPrefix(id, "#") && strings.TrimSuffix(id, "#") != base {
		return fmt.Errorf("$id %q inside a document (base %s) is not supported", id, base)
	}
	var err error
	for key, x := range m {
		switch key {
		case "type":
			switch t := x.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, e := range t {
					s, ok := e.(string)
					if !ok {
						return fmt.Errorf("type must list strings")
					}
					n.types = append(n.types, s)
				}
			default:
				return fmt.Errorf("type must be a string or an array")
			}
			for _, t := range n.types {
				switch t {
				case "null", "boolean", "object", "array", "number", "string", "integer":
				default:
					return fmt.Errorf("unknown type %q", t)
				}
			}
		case "properties":
			props, ok := x.(map[string]any)
			if !ok {
				return fmt.Errorf("properties must be an object")
			}
			// Any order gives gojsonschema's findings once they are sorted by
			// path (its own order is Go's map order); a fixed one keeps runs
			// alike.
			for _, name := range slices.Sorted(maps.Keys(props)) {
				c, err := s.sub(props[name], base)
				if err != nil {
					return err
				}
				n.properties = append(n.properties, property{name: name, n: c})
			}
		case "additionalProperties":
			switch a := x.(type) {
			case bool:
				n.additional = a
			case map[string]any:
				if n.additional, err = s.sub(a, base); err != nil {
					return err
				}
			default:
				return fmt.Errorf("additionalProperties must be a boolean or a schema")
			}
		case "required":
			list, ok := x.([]any)
			if !ok {
				return fmt.Errorf("required must be an array")
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return fmt.Errorf("required must list strings")
				}
				n.required = append(n.required, s)
			}
		case "const":
			js, err := marshalWithoutNumber(x)
			if err != nil {
				return err
			}
			n.constJSON = js
			if str, ok := x.(string); ok {
				n.constStr = &str
			}
		case "enum":
			list, ok := x.([]any)
			if !ok {
				return fmt.Errorf("enum must be an array")
			}
			for _, e := range list {
				js, err := marshalWithoutNumber(e)
				if err != nil {
					return err
				}
				n.enum = append(n.enum, *js)
				if str, ok := e.(string); ok {
					if n.enumStrs == nil {
						n.enumStrs = map[string]bool{}
					}
					n.enumStrs[str] = true
				}
			}
		case "pattern":
			p, ok := x.(string)
			if !ok {
				return fmt.Errorf("pattern must be a string")
			}
			if n.pattern, err = regexp.Compile(p); err != nil {
				return err
			}
		case "format":
			f, ok := x.(string)
			if !ok {
				return fmt.Errorf("format must be a string")
			}
			if formatChecker(f) == nil && checkedByGojsonschema(f) {
				return fmt.Errorf("format %q is checked by gojsonschema but not implemented here", f)
			}
			n.format = f
		case "minLength", "maxLength", "minItems", "maxItems":
			dst := map[string]**int{"minLength": &n.minLength, "maxLength": &n.maxLength, "minItems": &n.minItems, "maxItems": &n.maxItems}[key]
			if *dst, err = nonNegInt(x, key); err != nil {
				return err
			}
		case "minimum", "maximum":
			dst := map[string]**big.Rat{"minimum": &n.minimum, "maximum": &n.maximum}[key]
			if *dst, err = number(x, key); err != nil {
				return err
			}
		case "items":
			if _, ok := x.([]any); ok {
				return fmt.Errorf("items as an array (tuple validation) is not implemented")
			}
			if n.items, err = s.sub(x, base); err != nil {
				return err
			}
		case "anyOf", "oneOf", "allOf":
			dst := map[string]*[]*node{"anyOf": &n.anyOf, "oneOf": &n.oneOf, "allOf": &n.allOf}[key]
			if *dst, err = s.subs(x, base, key); err != nil {
				return err
			}
		case "not", "if", "then", "else":
			dst := map[string]**node{"not": &n.not, "if": &n.ifN, "then": &n.thenN, "else": &n.elseN}[key]
			if *dst, err = s.sub(x, base); err != nil {
				return err
			}
		default:
			if !IsAnnotation(key) {
				return fmt.Errorf("keyword %q is not implemented", key)
			}
		}
	}
	return nil
}

// marshalWithoutNumber is gojsonschema's canonical form of a value for const,
// enum: marshalled, decoded without UseNumber (numbers become float64) and
// marshalled again.
func marshalWithoutNumber(v any) (*string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	b, err = json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	s := string(b)
	return &s, nil
}
