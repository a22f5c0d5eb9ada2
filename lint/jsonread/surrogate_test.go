package jsonread

import (
	"reflect"
	"testing"
)

// A \u escape of a surrogate that does not start a valid pair is U+FFFD, and
// the escape after it is read on its own, as encoding/json (and so gojsonschema)
// reads it: jsonread must not swallow the second escape.
func TestUnpairedSurrogateKeepsNextEscape(t *testing.T) {
	for _, in := range []string{
		`"\ud800\u0041"`,       // high surrogate, then a plain letter
		`"\udc00\ud83d\ude00"`, // lone low surrogate, then a valid pair
		`"\ud800\ud800\udc00"`, // high surrogate, then a valid pair
		`{"\ud800\u0061":1}`,   // in a key
	} {
		root, _, err := Parse([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		want := stdValue(t, in)
		if got := root.Interface(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded %q, encoding/json %q", in, got, want)
		}
	}
}
