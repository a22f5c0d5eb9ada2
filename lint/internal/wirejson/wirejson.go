// Package wirejson decodes protocol messages into typed wire structs
// (lint/spec/<protocol>) without losing what a decode into any tells: each
// member is a Field, which keeps a member of the wrong type (or null) as sent
// instead of failing the message, and DecodeObject matches members by their
// exact names (encoding/json's struct decoding folds case: it would take
// "ID" for "id"). The last of duplicate members wins, as in a map.
package wirejson

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
)

// Field is one member of a received message as the peer sent it: Raw is its
// JSON text (nil when the message has no such member), OK whether it is a T
// (a JSON null is none), V its value then (T's zero value otherwise). A check
// tells "absent" from "present but no T" by Has and OK, and quotes what was
// sent by Any.
type Field[T any] struct {
	V   T
	OK  bool
	Raw json.RawMessage
}

// Get is the member's value and whether it is a T.
func (f Field[T]) Get() (T, bool) { return f.V, f.OK }

// Has reports whether the message has the member (of any type, null too).
func (f Field[T]) Has() bool { return f.Raw != nil }

// Any is the member as encoding/json decodes it into an any (numbers
// float64); nil when absent.
func (f Field[T]) Any() any {
	var v any
	if f.Raw != nil {
		_ = json.Unmarshal(f.Raw, &v) // Raw is one JSON value: the decoder read it
	}
	return v
}

// AnyNumber is Any with numbers as json.Number (encoding/json's UseNumber):
// their text as sent, for integers past float64's precision.
func (f Field[T]) AnyNumber() any {
	var v any
	if f.Raw != nil {
		d := json.NewDecoder(bytes.NewReader(f.Raw))
		d.UseNumber()
		_ = d.Decode(&v)
	}
	return v
}

// UnmarshalJSON keeps b and decodes it as a T when it is one; it never fails.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	*f = Field[T]{Raw: append(json.RawMessage(nil), b...)}
	if string(b) != "null" && json.Unmarshal(b, &f.V) == nil {
		f.OK = true
	} else {
		var zero T
		f.V = zero
	}
	return nil
}

// MarshalJSON writes the member as it was sent (null when absent).
func (f Field[T]) MarshalJSON() ([]byte, error) {
	if f.Raw != nil {
		return f.Raw, nil
	}
	return []byte("null"), nil
}

// IsZero reports an absent member (the json option omitzero leaves it out).
func (f Field[T]) IsZero() bool { return f.Raw == nil }

// ErrNotObject is the error of a JSON value that is no object (null too).
var ErrNotObject = errors.New("the message is no JSON object")

// DecodeObject decodes the JSON object b into the struct dst points to: each
// field the member named exactly by its json tag. Fields are Fields (or types
// whose UnmarshalJSON never fails), so no member's type fails the object.
func DecodeObject(b []byte, dst any) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	if members == nil {
		return ErrNotObject // null
	}
	v := reflect.ValueOf(dst).Elem()
	for i, name := range MemberNames(v.Type()) {
		if raw, ok := members[name]; ok && name != "" {
			if err := json.Unmarshal(raw, v.Field(i).Addr().Interface()); err != nil {
				return err
			}
		}
	}
	return nil
}

// Valid reports whether encoding/json decodes b into an any that is an
// object: what a reader of map[string]any took for a message. It fails where
// DecodeObject alone would not: on a number past float64's range anywhere.
func Valid(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if _, ok := v.(map[string]any); !ok {
		return ErrNotObject
	}
	return nil
}

var names sync.Map // reflect.Type → []string

// MemberNames are the json names of the fields of the struct type t, by field
// index ("" for a field without one).
func MemberNames(t reflect.Type) []string {
	if n, ok := names.Load(t); ok {
		return n.([]string)
	}
	n := make([]string, t.NumField())
	for i := range n {
		n[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	names.Store(t, n)
	return n
}
