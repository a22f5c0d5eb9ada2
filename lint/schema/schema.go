// Package schema validates parsed messages against aopkit's embedded JSON Schemas:
// validators generated from the schemas (lint/schema/generated) pass valid
// messages, and lint/schema/draft7 writes the diagnostics of the others, exactly
// as gojsonschema, the validator of record, does (tests hold both to it; see
// lint/schema/ofrecord). Each schema is compiled once, on first use, so a run
// compiles only the schemas it needs; errors become diagnostics with JSON
// Pointers.
package schema

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema/draft7"
	"github.com/aopkit/aopkit/lint/schema/generated"
	"github.com/aopkit/aopkit/schemas"
)

// Memo computes a value per key once, on first use, for concurrent callers.
type Memo[T any] struct {
	mu      sync.Mutex
	entries map[string]*memoEntry[T]
}

type memoEntry[T any] struct {
	once sync.Once
	v    T
	err  error
}

// Get returns the value of key, computing it with f the first time.
func (m *Memo[T]) Get(key string, f func() (T, error)) (T, error) {
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[string]*memoEntry[T]{}
	}
	e, ok := m.entries[key]
	if !ok {
		e = &memoEntry[T]{}
		m.entries[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = f() })
	return e.v, e.err
}

var (
	docs     Memo[any]
	compiled Memo[*draft7.Schema]
	set      = &draft7.Set{Load: func(docURL string) (any, error) {
		name, ok := strings.CutPrefix(docURL, schemas.BaseURL)
		if !ok {
			return nil, fmt.Errorf("not an embedded schema")
		}
		return Doc(name)
	}}
)

// Doc returns the schema file (a path within schemas.FS) decoded as
// draft7.Decode does, decoding it on first use: every reader of an embedded
// schema in a process (the compiled validators, lint/aop2's member shapes) shares
// the one decode. The value is shared: never modify it.
func Doc(file string) (any, error) {
	return docs.Get(file, func() (any, error) {
		data, err := fs.ReadFile(schemas.FS, file)
		if err != nil {
			return nil, err
		}
		return draft7.Decode(data)
	})
}

// Compiled returns the compiled schema of file (a path within schemas.FS such as
// "aof/completion.report.schema.json"), compiling it on first use with the files
// it refers to.
func Compiled(file string) (*draft7.Schema, error) {
	return compiled.Get(file, func() (*draft7.Schema, error) { return set.Compile(schemas.BaseURL + file) })
}

// Refs lists the other schema files file refers to by "$ref", directly or through
// them, sorted: what must be loaded beside it (and exported with it), and no more.
func Refs(file string) ([]string, error) {
	seen := map[string]bool{file: true}
	queue := []string{file}
	var out []string
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		doc, err := Doc(f)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", f, err)
		}
		walkRefs(doc, func(ref string) {
			target, _, _ := strings.Cut(ref, "#")
			if target == "" || strings.Contains(target, "://") {
				return
			}
			name := path.Join(path.Dir(f), target)
			if !seen[name] {
				seen[name] = true
				queue = append(queue, name)
				out = append(out, name)
			}
		})
	}
	sort.Strings(out)
	return out, nil
}

func walkRefs(v any, f func(string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				f(s)
			} else {
				walkRefs(x, f)
			}
		}
	case []any:
		for _, x := range v {
			walkRefs(x, f)
		}
	}
}

// Error is one schema violation.
type Error struct {
	Pointer string // where the violation is (for "required": the missing member)
	Type    string // gojsonschema's error type: "required", "enum", ...
	Message string // what is wrong, with the pointer spelled out
}

// Validate checks root against the schema file. A message the generated validator
// (lint/schema/generated) finds valid is valid for gojsonschema too and skips the
// rest; any other is checked by lint/schema/draft7, which writes the diagnostics.
func Validate(file string, root *jsonread.Node) ([]Error, error) {
	if generated.Validate(file, root) == generated.Valid {
		return nil, nil
	}
	s, err := Compiled(file)
	if err != nil {
		return nil, err
	}
	return Check(s, root.Interface()), nil
}

// Check validates v, a tree made a value (jsonread.Node.Interface), against a
// compiled schema (Validate's, or one aopkit did not embed, such as the official
// MCP and A2A schemas, which lint/wrapped checks one value against several) and
// returns the violations as Validate does.
func Check(s *draft7.Schema, v any) []Error {
	var out []Error
	for _, e := range s.Validate(v) {
		// gojsonschema's path is one string, tokens joined by a separator that
		// lint/schema has always split it at (ofrecord.Errors does the same), so a
		// member name holding that byte splits here too.
		path := strings.Split(strings.Join(append([]string{"(root)"}, e.Path...), Sep), Sep)[1:]
		out = append(out, NewError(e.Type, path, e.Property, e.Allowed, e.Description))
	}
	return Sorted(out)
}

// Sep joins the tokens of gojsonschema's error paths.
const Sep = "\x00"

// Sorted orders errors by pointer (ties keep the validator's order) and drops
// exact duplicates.
func Sorted(out []Error) []Error {
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return dedupe(out)
}

// NewError is the diagnostic of one violation as gojsonschema (or draft7) reports
// it: its type, the path of the value (tokens below the root), the member named by
// required and additional_property_not_allowed, the allowed values of enum, and
// the validator's description.
func NewError(typ string, path []string, property, allowed, description string) Error {
	ptr := ""
	for _, t := range path {
		ptr += "/" + jsonread.EscapeToken(t)
	}
	msg := description
	switch typ {
	case "required":
		where := ptr
		if where == "" {
			where = "the top level"
		}
		ptr += "/" + jsonread.EscapeToken(property)
		msg = fmt.Sprintf("%q is required in %s", property, where)
	case "additional_property_not_allowed":
		ptr += "/" + jsonread.EscapeToken(property)
		msg = fmt.Sprintf("unknown member %q is not allowed here", property)
	case "enum":
		msg = fmt.Sprintf("%s: value must be one of %v", displayPtr(ptr), allowed)
	default:
		msg = fmt.Sprintf("%s: %s", displayPtr(ptr), msg)
	}
	return Error{Pointer: ptr, Type: typ, Message: msg}
}

func displayPtr(p string) string {
	if p == "" {
		return "the message"
	}
	return p
}

// dedupe drops "number_one_of"/"number_any_of" summaries that only repeat the
// detailed errors below them, and exact duplicates.
func dedupe(es []Error) []Error {
	seen := map[string]bool{}
	var out []Error
	for _, e := range es {
		k := e.Pointer + "\x00" + e.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}
