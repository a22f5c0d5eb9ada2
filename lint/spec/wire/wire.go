// Package wire binds a JSON message, as lint/jsonread reads it for the linter,
// to the typed wire structs of lint/spec/<protocol>. It is the one decoder the
// protocols' typed views share (aof, aop2, aop-output, orchmsg, aos), so that
// the conformance checks, the reference engines and mockagent read a message
// the way aoplint reads it. (It replaced lint/internal/wirejson, a decoder on
// encoding/json's RawMessage, and aof's own fill of a decoded map: the one
// reader is jsonread's, so "the message the checks read" and "the message the
// linter read" cannot drift apart.)
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
//   - an any, []any or map[string]any field takes the member as encoding/json
//     with UseNumber decodes it (jsonread.Node.Interface: numbers are
//     json.Number), or, bound with Float64, as encoding/json decodes it into an
//     any (numbers float64; a number past float64's range anywhere in it makes
//     the whole value mistyped, as encoding/json refuses it);
//   - a Field[T] keeps what a plain field loses: whether the member is there
//     (null included: Has), whether it is a T (OK), the value (V) and its JSON
//     text (Raw; Any and AnyNumber decode it). A protocol whose checks must
//     tell "absent" from "null" from "of another type" (aof, orchmsg, aos)
//     types its members as Fields; a Field's mistyped member is kept, not
//     reported by Bind.
//
// Supported field types: string, bool, float64, json.Number, any, []any,
// map[string]any, Field[T] of a supported T, pointers to these and to structs,
// slices of supported types, structs (an embedded struct's fields are the
// outer object's members).
//
// What the reader accepts is jsonread's: one JSON value, within jsonread.MaxDepth
// nesting and jsonread.MaxValues values (encoding/json's limits are wider; the
// linter refuses such a document too). Read also hands back the first value of
// an input with data after it, with the error: a protocol that took such lines
// (aof's json.Decoder with More) decides with the error's offset.
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
// strings is read as U+FFFD, one for each invalid byte, as encoding/json reads
// it (the linter reports the bytes; the message is still read), and a leading
// byte-order mark is an error (jsonread skips it with a warning). The error
// says why data is not one JSON object. (jsonread also bounds nesting at
// jsonread.MaxDepth and a document at jsonread.MaxValues, far beyond any
// protocol message.)
func Parse(data []byte) (*jsonread.Node, error) {
	root, _, err := parse(data, false)
	if err != nil {
		return nil, err
	}
	if err := IsObject(root); err != nil {
		return nil, err
	}
	return root, nil
}

// IsObject is nil when n is a JSON object, else the error that says what it is.
func IsObject(n *jsonread.Node) error {
	if n.Kind != jsonread.Object {
		return fmt.Errorf("a message must be a JSON object, not %s", n.Kind)
	}
	return nil
}

// Message is one JSON value read by Read: its tree, and the text the tree's
// offsets index (a copy of the input of the reader's own, invalid UTF-8 made
// U+FFFD), from which a Field's Raw is cut.
type Message struct {
	Root *jsonread.Node
	Text []byte
}

// Read reads one JSON value (any kind) as Parse does, keeping its text for the
// Fields Bind sets. When data has more after the value, Read returns the
// message of the first value with jsonread's *SyntaxError of Code "trailing"
// (its Offset indexes Text).
func Read(data []byte) (*Message, error) {
	root, text, err := parse(data, true)
	if root == nil {
		return nil, err
	}
	return &Message{Root: root, Text: text}, err
}

// parse is Parse and Read: the tree, and when keep the text it was read from.
func parse(data []byte, keep bool) (*jsonread.Node, []byte, error) {
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return nil, nil, errors.New("the input starts with a UTF-8 byte-order mark")
	}
	root, _, err := jsonread.Parse(data)
	if se, ok := err.(*jsonread.SyntaxError); ok && se.Code == "utf8" && !utf8.Valid(data) {
		data = validUTF8(data)
		root, _, err = jsonread.Parse(data)
	} else if keep {
		data = bytes.Clone(data)
	}
	if se, ok := err.(*jsonread.SyntaxError); !ok || se.Code != "trailing" {
		if err != nil {
			return nil, nil, err
		}
	}
	return root, data, err
}

// validUTF8 is data with every byte that starts no valid UTF-8 sequence
// replaced by U+FFFD, as encoding/json decodes a string (strings.ToValidUTF8
// replaces a run of such bytes by one).
func validUTF8(data []byte) []byte {
	out := make([]byte, 0, len(data)+16)
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out
}

// Numbers says how an any, []any or map[string]any value takes JSON numbers.
type Numbers uint8

const (
	// UseNumber: json.Number, the number's text (encoding/json's UseNumber).
	UseNumber Numbers = iota
	// Float64: float64, as encoding/json decodes into an any; a number past
	// float64's range anywhere in the value makes the value mistyped.
	Float64
)

// Bind sets the struct v points to from the object n (nothing when n is no
// object), by the rules of the package doc, numbers of any-typed values as
// json.Number. It returns the JSON Pointers of the members it left zero
// because their JSON type is not their field's (a number out of float64's
// range included), in the order of the fields: what encoding/json would have
// refused with an *UnmarshalTypeError (the caller that must refuse such a
// message, as a strict reader did, has them). v must have no Field: bind
// those with Message.Bind, which has their text.
func Bind(n *jsonread.Node, v any) (mistyped []string) {
	return bind(n, v, nil, UseNumber)
}

// Bind is the package's Bind of n, a node of m's tree, with Fields (their Raw
// cut from m.Text) and numbers of any-typed values as nums says.
func (m *Message) Bind(n *jsonread.Node, v any, nums Numbers) (mistyped []string) {
	return bind(n, v, m.Text, nums)
}

// Decode reads data, one JSON object and nothing after it, into the struct v
// points to (Read, Message.Bind). It fails as Parse fails.
func Decode(data []byte, v any, nums Numbers) error {
	m, err := Read(data)
	if err != nil {
		return err
	}
	if err := IsObject(m.Root); err != nil {
		return err
	}
	m.Bind(m.Root, v, nums)
	return nil
}

func bind(n *jsonread.Node, v any, text []byte, nums Numbers) []string {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("wire.Bind: not a non-nil pointer")
	}
	b := binder{text: text, nums: nums}
	b.bind(n, rv.Elem())
	return b.mistyped
}

// binder binds one tree, keeping the path to the value it is at.
type binder struct {
	text     []byte
	nums     Numbers
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

// raw is the JSON text of n.
func (b *binder) raw(n *jsonread.Node) json.RawMessage {
	if b.text == nil {
		panic("wire: a Field is bound without the message's text: bind it with Message.Bind")
	}
	return json.RawMessage(b.text[n.Offset:n.End:n.End])
}

var (
	numberType   = reflect.TypeFor[json.Number]()
	anyType      = reflect.TypeFor[any]()
	anySliceType = reflect.TypeFor[[]any]()
	memberType   = reflect.TypeFor[member]()
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

// MemberNames are the member names the struct type t binds, in field order.
func MemberNames(t reflect.Type) []string {
	var names []string
	for _, f := range fieldsOf(t) {
		names = append(names, f.key)
	}
	return names
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

// bind sets v from n (absent: nil), recording a mistyped member.
func (b *binder) bind(n *jsonread.Node, v reflect.Value) {
	if n == nil {
		return
	}
	if v.Kind() == reflect.Struct && isField(v.Type()) {
		b.bindField(n, v)
		return
	}
	if n.Kind == jsonread.Null {
		return
	}
	if !b.set(n, v) {
		b.wrong()
	}
}

var fieldTypes sync.Map // reflect.Type → bool

// isField reports whether the struct type t is a Field.
func isField(t reflect.Type) bool {
	if is, ok := fieldTypes.Load(t); ok {
		return is.(bool)
	}
	is := reflect.PointerTo(t).Implements(memberType)
	fieldTypes.Store(t, is)
	return is
}

// bindField sets the Field v (V, OK, Raw) from n, the member (null too).
func (b *binder) bindField(n *jsonread.Node, v reflect.Value) {
	v.SetZero()
	v.Field(2).SetBytes(b.raw(n))
	if n.Kind != jsonread.Null && b.set(n, v.Field(0)) {
		v.Field(1).SetBool(true)
	}
}

// set sets v from n, no null, and reports whether n's JSON type is v's (v is
// left zero when not).
func (b *binder) set(n *jsonread.Node, v reflect.Value) bool {
	t := v.Type()
	if !fits(n.Kind, t) {
		return false
	}
	switch {
	case t == numberType:
		v.SetString(n.Str)
		return true
	case t == anyType, t == anySliceType:
		x, ok := b.anyValue(n)
		if ok && x != nil {
			v.Set(reflect.ValueOf(x))
		}
		return ok
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(n.Str)
	case reflect.Bool:
		v.SetBool(n.Bool)
	case reflect.Float64:
		f, ok := n.Float()
		if !ok {
			return false // out of float64's range: no number it can hold
		}
		v.SetFloat(f)
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if !b.set(n, p.Elem()) {
			return false
		}
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
		x, ok := b.anyValue(n)
		if !ok {
			return false
		}
		v.Set(reflect.ValueOf(x))
	case reflect.Struct:
		for _, f := range fieldsOf(t) {
			b.path = append(b.path, f.key)
			b.bind(n.Get(f.key), v.FieldByIndex(f.index))
			b.path = b.path[:len(b.path)-1]
		}
	}
	return true
}

// anyValue is n as encoding/json decodes it into an any, numbers as b.nums
// says; false for a number past float64's range with Float64.
func (b *binder) anyValue(n *jsonread.Node) (any, bool) {
	if b.nums == UseNumber {
		return n.Interface(), true
	}
	return floatValue(n)
}

// floatValue is n as encoding/json decodes it into an any (numbers float64),
// false when a number in it is out of float64's range (encoding/json's
// *UnmarshalTypeError).
func floatValue(n *jsonread.Node) (any, bool) {
	switch n.Kind {
	case jsonread.Null:
		return nil, true
	case jsonread.Bool:
		return n.Bool, true
	case jsonread.Number:
		f, ok := n.Float()
		if !ok {
			return nil, false
		}
		return f, true
	case jsonread.String:
		return n.Str, true
	case jsonread.Array:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			x, ok := floatValue(it)
			if !ok {
				return nil, false
			}
			out[i] = x
		}
		return out, true
	default:
		out := make(map[string]any, len(n.Members))
		for _, m := range n.Members {
			x, ok := floatValue(m.Value)
			if !ok {
				return nil, false
			}
			out[m.Key] = x
		}
		return out, true
	}
}

// Float64Range is nil when every number in n is within float64's range, else
// encoding/json's error for the first that is not: what a reader that
// decodes a message into an any refuses.
func Float64Range(n *jsonread.Node) error {
	if _, ok := floatValue(n); ok {
		return nil
	}
	var bad string
	var find func(n *jsonread.Node) bool
	find = func(n *jsonread.Node) bool {
		if _, ok := n.Float(); n.Kind == jsonread.Number && !ok {
			bad = n.Str
			return true
		}
		for _, it := range n.Items {
			if find(it) {
				return true
			}
		}
		for _, m := range n.Members {
			if find(m.Value) {
				return true
			}
		}
		return false
	}
	find(n)
	return fmt.Errorf("json: cannot unmarshal number %s into Go value of type float64", bad)
}
