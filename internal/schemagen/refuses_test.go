package schemagen

import (
	"strings"
	"testing"
	"testing/fstest"
)

// Every draft-07 keyword the generator does not implement is refused, wherever
// the schema holding it is reached from.
func TestRefusesMoreKeywords(t *testing.T) {
	for _, s := range []string{
		`{"propertyNames":{"maxLength":3}}`,
		`{"contains":{"type":"string"}}`,
		`{"uniqueItems":true}`,
		`{"minProperties":1}`,
		`{"maxProperties":1}`,
		`{"additionalItems":false,"items":{}}`,
		`{"multipleOf":2}`,
		`{"dependencies":{"a":{"required":["b"]}}}`,
		`{"const":{"a":1}}`,
		`{"const":[1]}`,
		`{"enum":["a",[1]]}`,
		`{"properties":{"a":{"patternProperties":{"x":{}}}}}`,
		`{"items":{"uniqueItems":true}}`,
		`{"not":{"contains":{}}}`,
		`{"if":{"propertyNames":{}},"then":{}}`,
		`{"additionalProperties":{"minProperties":1}}`,
		`{"anyOf":[{"multipleOf":3}]}`,
		`{"contentMediaType":"application/json"}`,
	} {
		fsys := fstest.MapFS{"p/a.schema.json": {Data: []byte(s)}}
		if _, err := Generate(fsys, "https://aopkit.dev/schemas/"); err == nil {
			t.Errorf("%s: generated without error", s)
		}
	}
}

// A const or enum of -0: gojsonschema compares canonical forms, and -0 marshals
// as "-0", not "0", so 0 does not match a const of -0. The generated scalar must
// keep the sign (a Go literal -0 is the constant 0: it does not).
func TestConstNegativeZeroKeepsItsSign(t *testing.T) {
	fsys := fstest.MapFS{"p/a.schema.json": {Data: []byte(`{"const":-0}`)}}
	src, err := Generate(fsys, "https://aopkit.dev/schemas/")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(src), "f: -0}") || strings.Contains(string(src), "f: 0}") {
		t.Fatalf("const -0 is written as a Go constant that is +0:\n%s", src)
	}
}
