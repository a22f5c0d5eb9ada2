// Package schema validates parsed messages against aopkit's embedded JSON Schemas
// with gojsonschema, the validator of record, behind validators generated from the
// same schemas that pass valid messages without it. Each schema is compiled once, on first
// use, so a run compiles only the schemas it needs; errors become diagnostics with
// JSON Pointers.
package schema

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema/generated"
	"github.com/aopkit/aopkit/schemas"
)

type entry struct {
	once   sync.Once
	schema *gojsonschema.Schema
	err    error
}

var (
	mu    sync.Mutex
	cache = map[string]*entry{}
)

// Compiled returns the compiled schema of file (a path within schemas.FS such as
// "aof/completion.report.schema.json"), compiling it on first use.
func Compiled(file string) (*gojsonschema.Schema, error) {
	mu.Lock()
	e, ok := cache[file]
	if !ok {
		e = &entry{}
		cache[file] = e
	}
	mu.Unlock()
	e.once.Do(func() { e.schema, e.err = compile(file) })
	return e.schema, e.err
}

func compile(file string) (*gojsonschema.Schema, error) {
	main, err := fs.ReadFile(schemas.FS, file)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", file, err)
	}
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.AutoDetect = false
	refs, err := Refs(file)
	if err != nil {
		return nil, err
	}
	for _, name := range refs {
		data, err := fs.ReadFile(schemas.FS, name)
		if err != nil {
			return nil, err
		}
		if err := sl.AddSchema(schemas.BaseURL+name, gojsonschema.NewBytesLoader(data)); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
	}
	return sl.Compile(gojsonschema.NewBytesLoader(main))
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
		data, err := fs.ReadFile(schemas.FS, f)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", f, err)
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
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
// (lint/schema/generated) finds valid is valid for gojsonschema too and skips it;
// any other goes to gojsonschema, which writes the diagnostics.
func Validate(file string, root *jsonread.Node) ([]Error, error) {
	if generated.Validate(file, root) == generated.Valid {
		return nil, nil
	}
	return validateOfRecord(file, root)
}

// validateOfRecord checks root with gojsonschema alone.
func validateOfRecord(file string, root *jsonread.Node) ([]Error, error) {
	s, err := Compiled(file)
	if err != nil {
		return nil, err
	}
	return Check(s, root)
}

// Check validates root against a compiled schema (one aopkit did not embed, such as
// the official MCP and A2A schemas) and returns the violations as Validate does.
func Check(s *gojsonschema.Schema, root *jsonread.Node) ([]Error, error) {
	res, err := s.Validate(gojsonschema.NewRawLoader(root.Interface()))
	if err != nil {
		return nil, err
	}
	var out []Error
	for _, re := range res.Errors() {
		out = append(out, convert(re))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return dedupe(out), nil
}

const sep = "\x00"

func convert(re gojsonschema.ResultError) Error {
	ptr := ""
	if ctx := re.Context(); ctx != nil {
		toks := strings.Split(ctx.String(sep), sep)
		if len(toks) > 0 && toks[0] == "(root)" {
			toks = toks[1:]
		}
		for _, t := range toks {
			ptr += "/" + jsonread.EscapeToken(t)
		}
	}
	d := re.Details()
	msg := re.Description()
	switch re.Type() {
	case "required":
		prop, _ := d["property"].(string)
		where := ptr
		if where == "" {
			where = "the top level"
		}
		ptr += "/" + jsonread.EscapeToken(prop)
		msg = fmt.Sprintf("%q is required in %s", prop, where)
	case "additional_property_not_allowed":
		prop, _ := d["property"].(string)
		ptr += "/" + jsonread.EscapeToken(prop)
		msg = fmt.Sprintf("unknown member %q is not allowed here", prop)
	case "enum":
		msg = fmt.Sprintf("%s: value must be one of %v", displayPtr(ptr), d["allowed"])
	default:
		msg = fmt.Sprintf("%s: %s", displayPtr(ptr), msg)
	}
	return Error{Pointer: ptr, Type: re.Type(), Message: msg}
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
