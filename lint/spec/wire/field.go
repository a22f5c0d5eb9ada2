package wire

import (
	"bytes"
	"encoding/json"
)

// Field is one member of a received message as the peer sent it: Raw is its
// JSON text (nil when the message has no such member), OK whether it is a T
// (a JSON null is none), V its value then (T's zero value otherwise). A check
// tells "absent" from "present but no T" by Has and OK, and quotes what was
// sent by Any or AnyNumber.
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
// float64); nil when absent or null (or holding a number past float64's range).
func (f Field[T]) Any() any {
	var v any
	if f.Raw != nil {
		_ = json.Unmarshal(f.Raw, &v) // Raw is one JSON value: the reader read it
	}
	return v
}

// AnyNumber is Any with numbers as json.Number (encoding/json's UseNumber):
// their text as sent, for integers past float64's precision; nil when absent
// or null.
func (f Field[T]) AnyNumber() any {
	var v any
	if f.Raw != nil {
		d := json.NewDecoder(bytes.NewReader(f.Raw))
		d.UseNumber()
		_ = d.Decode(&v)
	}
	return v
}

// UnmarshalJSON reads b, one JSON value, as Bind reads a member (numbers of
// an any-typed T float64, as encoding/json decodes them); it fails only when
// b is not one JSON value.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	m, err := Read(b)
	if err != nil {
		return err
	}
	m.Bind(m.Root, f, Float64)
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

// member is a Field of any T: the binder sets its V, OK and Raw by
// reflection (bindField), without a call through an interface, which would
// move the binder to the heap.
type member interface{ wireField() }

func (*Field[T]) wireField() {}
