// Package wire binds a JSON message, as lint/jsonread reads it for the linter,
// to the typed wire structs of lint/spec/<protocol>. It is the one decoder the
// protocols' typed views share, so that the conformance checks, the reference
// engines and mockagent read a message the way aoplint reads it:
//
//   - keys match a field's json tag exactly (encoding/json folds case: a
//     "Task_ID" would fill task_id there; here it is an unknown member, as for
//     the linter), and the last of duplicate keys wins (jsonread.Node.Get);
//   - a member whose JSON type is not its field's leaves the field zero, as if
//     absent: a string field reads "" for 5, a struct field stays zero for a
//     string, a pointer field stays nil. The linter's schema rules report such a
//     member; the reader of the struct sees what a walk with a type assertion
//     saw (the checks' former walk of decoded any);
//   - a pointer field is set only when the member is present with its type (a
//     *bool only for true or false, a *float64 only for a number, a *struct
//     only for an object): nil is "absent, null or of another type";
//   - a slice field takes an array item for item (an item of another type is a
//     zero element, so len is the array's), and is non-nil for an empty array;
//   - an any or map[string]any field takes the member as encoding/json with
//     UseNumber decodes it (jsonread.Node.Interface: numbers are json.Number).
//
// Supported field types: string, bool, float64, json.Number, any,
// map[string]any, pointers to these and to structs, slices of supported types,
// structs (an embedded struct's fields are the outer object's members).
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// Parse reads one JSON object (after surrounding spaces) as jsonread does for
// the linter, and refuses what encoding/json refuses: invalid UTF-8 inside
// strings is read as U+FFFD, as encoding/json reads it (the linter reports the
// bytes; the message is still read), and a leading byte-order mark is an error
// (jsonread skips it with a warning). The error says why data is not one JSON
// object. (jsonread also bounds nesting at jsonread.MaxDepth and a document at
// jsonread.MaxValues, far beyond any protocol message.)
func Parse(data []byte) (*jsonread.Node, error) {
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return nil, errors.New("the input starts with a UTF-8 byte-order mark")
	}
	root, _, err := jsonread.Parse(data)
	if se, ok := err.(*jsonread.SyntaxError); ok && se.Code == "utf8" && !utf8.Valid(data) {
		root, _, err = jsonread.Parse([]byte(strings.ToValidUTF8(string(data), "\uFFFD")))
	}
	if err != nil {
		return nil, err
	}
	if root.Kind != jsonread.Object {
		return nil, fmt.Errorf("a message must be a JSON object, not %s", root.Kind)
	}
	return root, nil
}

// Bind sets the struct v points to from the object n (nothing when n is no
// object), by the rules of the package doc. It returns the JSON Pointers of the
// members it left zero because their JSON type is not their field's (a number
// out of float64's range included), in the order of the fields: what encoding/json
// would have refused with an *UnmarshalTypeError (the caller that must refuse
// such a message, as a strict reader did, has them).
func Bind(n *jsonread.Node, v any) (mistyped []string) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("wire.Bind: not a non-nil pointer")
	}
	b := binder{}
	b.bind(n, rv.Elem())
	return b.mistyped
}

// binder binds one tree, keeping the path to the value it is at.
type binder struct {
	path     []string
	mistyped []string
}

func (b *binder) wrong() {
	var p strings.Builder
	for _, t := range b.path {
		p.WriteByte('/')
		p.WriteString(jsonread.EscapeToken(t))
	}
	b.mistyped = append(b.mistyped, p.String())
}

var (
	numberType = reflect.TypeFor[json.Number]()
	anyType    = reflect.TypeFor[any]()
)

// field is one bound field of a struct type: its json key and index path.
type field struct {
	key   string
	index []int
}

var fieldCache sync.Map // reflect.Type → []field

func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" || key == "" {
			continue
		}
		fs = append(fs, field{key, f.Index})
	}
	fieldCache.Store(t, fs)
	return fs
}

// fits reports whether a JSON value of kind k may set a value of type t.
func fits(k jsonread.Kind, t reflect.Type) bool {
	switch {
	case t == numberType:
		return k == jsonread.Number
	case t == anyType:
		return true
	}
	switch t.Kind() {
	case reflect.String:
		return k == jsonread.String
	case reflect.Bool:
		return k == jsonread.Bool
	case reflect.Float64:
		return k == jsonread.Number
	case reflect.Struct, reflect.Map:
		return k == jsonread.Object
	case reflect.Slice:
		return k == jsonread.Array
	case reflect.Pointer:
		return fits(k, t.Elem())
	}
	return false
}

func (b *binder) bind(n *jsonread.Node, v reflect.Value) {
	if n == nil || n.Kind == jsonread.Null {
		return
	}
	t := v.Type()
	if !fits(n.Kind, t) {
		b.wrong()
		return
	}
	switch {
	case t == numberType:
		v.SetString(n.Str)
		return
	case t == anyType:
		v.Set(reflect.ValueOf(n.Interface()))
		return
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(n.Str)
	case reflect.Bool:
		v.SetBool(n.Bool)
	case reflect.Float64:
		f, ok := n.Float()
		if !ok {
			b.wrong() // out of float64's range: no number it can hold
			return
		}
		v.SetFloat(f)
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Float64 {
			if _, ok := n.Float(); !ok {
				b.wrong()
				return
			}
		}
		p := reflect.New(t.Elem())
		b.bind(n, p.Elem())
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(t, len(n.Items), len(n.Items))
		for i, it := range n.Items {
			b.path = append(b.path, strconv.Itoa(i))
			b.bind(it, s.Index(i))
			b.path = b.path[:len(b.path)-1]
		}
		v.Set(s)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Elem() != anyType {
			panic("wire: unsupported map type " + t.String())
		}
		v.Set(reflect.ValueOf(n.Interface()))
	case reflect.Struct:
		for _, f := range fieldsOf(t) {
			b.path = append(b.path, f.key)
			b.bind(n.Get(f.key), v.FieldByIndex(f.index))
			b.path = b.path[:len(b.path)-1]
		}
	}
}
