package wirejson

import (
	"encoding/json"
	"testing"
)

type sample struct {
	ID    Field[string]  `json:"id"`
	N     Field[float64] `json:"n"`
	Inner Field[inner]   `json:"inner"`
}

type inner struct {
	Name Field[string] `json:"name"`
}

func (s *inner) UnmarshalJSON(b []byte) error { return DecodeObject(b, s) }

// TestDecodeObject: exact names, the last duplicate, null and other types kept
// as sent, a non-object member no failure.
func TestDecodeObject(t *testing.T) {
	var s sample
	if err := DecodeObject([]byte(`{"ID":"x","id":1,"id":"b","n":null,"inner":{"Name":"no","name":"yes"}}`), &s); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.ID.Get(); v != "b" || !ok {
		t.Errorf("id = %q %v, want b", v, ok)
	}
	if !s.N.Has() || s.N.OK || s.N.Any() != nil {
		t.Errorf("n = %+v, want present null", s.N)
	}
	if s.Inner.V.Name.V != "yes" {
		t.Errorf("inner.name = %q, want yes", s.Inner.V.Name.V)
	}
	s = sample{}
	if err := DecodeObject([]byte(`{"id":7,"n":"1","inner":[1],"big":12345678901234567890}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.ID.OK || s.ID.Any() != 7.0 || s.N.OK || s.Inner.OK || !s.Inner.Has() {
		t.Errorf("wrong types: %+v", s)
	}
	if n := (Field[any]{Raw: json.RawMessage(`12345678901234567890`)}).AnyNumber(); n != json.Number("12345678901234567890") {
		t.Errorf("AnyNumber = %#v", n)
	}
	for _, b := range []string{`null`, `[1]`, `"s"`, `{`} {
		if DecodeObject([]byte(b), &s) == nil {
			t.Errorf("DecodeObject(%s): no error", b)
		}
	}
	if Valid([]byte(`{"a":1e400}`)) == nil || Valid([]byte(`[]`)) == nil || Valid([]byte(`{"a":1}`)) != nil {
		t.Error("Valid")
	}
}
