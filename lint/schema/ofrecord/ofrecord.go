// Package ofrecord validates with gojsonschema, aopkit's validator of record, and
// reports as lint/schema does. aoplint does not link it (gojsonschema brings
// net/http); the tests of lint/schema, lint/schema/draft7 and lint/wrapped hold
// the validators aoplint runs to it, and benchmarks measure it.
package ofrecord

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/xeipuuv/gojsonschema"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/schemas"
)

var compiled schema.Memo[*gojsonschema.Schema]

// Compiled returns gojsonschema's compiled schema of file (a path within
// schemas.FS), compiling it on first use.
func Compiled(file string) (*gojsonschema.Schema, error) {
	return compiled.Get(file, func() (*gojsonschema.Schema, error) { return compile(file) })
}

func compile(file string) (*gojsonschema.Schema, error) {
	main, err := fs.ReadFile(schemas.FS, file)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", file, err)
	}
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.AutoDetect = false
	refs, err := schema.Refs(file)
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

// Validate checks root against the embedded schema file with gojsonschema alone.
func Validate(file string, root *jsonread.Node) ([]schema.Error, error) {
	s, err := Compiled(file)
	if err != nil {
		return nil, err
	}
	return Check(s, root)
}

// Check validates root against a schema gojsonschema compiled and returns the
// violations as schema.Check does.
func Check(s *gojsonschema.Schema, root *jsonread.Node) ([]schema.Error, error) {
	res, err := s.Validate(gojsonschema.NewRawLoader(root.Interface()))
	if err != nil {
		return nil, err
	}
	return Errors(res), nil
}

// Errors converts gojsonschema's result as schema.Check converts draft7's.
func Errors(res *gojsonschema.Result) []schema.Error {
	var out []schema.Error
	for _, re := range res.Errors() {
		var path []string
		if ctx := re.Context(); ctx != nil {
			path = strings.Split(ctx.String(schema.Sep), schema.Sep)
			if len(path) > 0 && path[0] == "(root)" {
				path = path[1:]
			}
		}
		d := re.Details()
		prop, _ := d["property"].(string)
		allowed := ""
		if re.Type() == "enum" {
			allowed = fmt.Sprint(d["allowed"])
		}
		out = append(out, schema.NewError(re.Type(), path, prop, allowed, re.Description()))
	}
	return schema.Sorted(out)
}

// Comparable reports whether gojsonschema can compare root with a const or an
// enum: it panics on a value holding a number beyond float64's range (draft7
// reports such a value as not matching). Differential tests skip the others.
func Comparable(root *jsonread.Node) bool {
	switch root.Kind {
	case jsonread.Number:
		_, err := strconv.ParseFloat(root.Str, 64)
		return err == nil
	case jsonread.Array:
		for _, it := range root.Items {
			if !Comparable(it) {
				return false
			}
		}
	case jsonread.Object:
		for _, m := range root.Members {
			if !Comparable(m.Value) {
				return false
			}
		}
	}
	return true
}
