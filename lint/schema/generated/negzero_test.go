package generated

import (
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// A const of -0 (negZero, as schemagen writes it) does not pass 0: gojsonschema
// finds 0 invalid against it.
func TestConstNegZero(t *testing.T) {
	vals := []scalar{{kind: jsonread.Number, f: negZero}}
	if v := oneOfScalars(&jsonread.Node{Kind: jsonread.Number, Str: "0"}, vals); v == Valid {
		t.Errorf("0 against const -0: %v", v)
	}
	if v := oneOfScalars(&jsonread.Node{Kind: jsonread.Number, Str: "-0.0"}, vals); v != Valid {
		t.Errorf("-0.0 against const -0: %v", v)
	}
}
