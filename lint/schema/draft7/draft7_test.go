package draft7

import (
	"bytes"
	"encoding/json"
	"math/big"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

// Every keyword draft7 implements, alone and combined, against gojsonschema on
// values of every type: the same errors (type, path, description) in the same order.
var keywordSchemas = []string{
	`{"type":"string"}`, `{"type":["string","null"]}`, `{"type":"integer"}`, `{"type":"number"}`,
	`{"type":"object","required":["a","b"],"properties":{"a":{"type":"string","minLength":2,"maxLength":3},"b":{"const":1}}}`,
	`{"properties":{"a":{"enum":["x",1,null,{"k":[1]},true]}},"additionalProperties":false}`,
	`{"additionalProperties":{"type":"integer","minimum":0,"maximum":10}}`,
	`{"items":{"type":"string","pattern":"^[a-z]+$"},"minItems":1,"maxItems":2}`,
	`{"anyOf":[{"type":"string"},{"type":"object","required":["a"]},{"required":["a","b","c"]}]}`,
	`{"oneOf":[{"type":"number"},{"type":"integer"},{"required":["a"]}]}`,
	`{"allOf":[{"required":["a"]},{"properties":{"a":{"type":"boolean"}}}]}`,
	`{"not":{"type":"array"}}`,
	`{"if":{"properties":{"k":{"const":"x"}}},"then":{"required":["x"]},"else":{"required":["y"]}}`,
	`{"if":{"required":["k"]},"then":false}`,
	`{"properties":{"t":{"format":"date-time"},"u":{"format":"uri"},"v":{"format":"uri-template"},"w":{"format":"byte"}}}`,
	`{"format":"date-time"}`,
	`{"definitions":{"n":{"type":"object","properties":{"next":{"$ref":"#/definitions/n"},"v":{"minimum":1.5}}}},"$ref":"#/definitions/n"}`,
	`{"properties":{"a.b":{"type":"string"},"c/d~":{"type":"string"}}}`,
	`true`, `false`, `{"properties":{"a":false}}`,
}

var keywordValues = []string{
	`null`, `true`, `0`, `1`, `1.0`, `1.5`, `-3`, `11`, `1e2`, `"x"`, `"ab"`, `"abcd"`, `"AB"`, `[]`, `["a"]`, `["a","b","c"]`, `[1]`,
	`{}`, `{"a":"x"}`, `{"a":"xy","b":1}`, `{"a":"xy","b":1.0}`, `{"a":"xy","b":2}`, `{"a":1,"b":"1"}`, `{"a":true}`, `{"a":null}`,
	`{"a":{"k":[1.0]}}`, `{"a":{"k":[2]}}`, `{"z":1}`, `{"z":-1,"y":"s"}`, `{"a":"x","b":1,"c":2}`, `{"k":"x"}`, `{"k":"x","x":1}`, `{"k":"y"}`,
	`{"t":"2026-01-02T03:04:05Z","u":"https://a/b","v":"/a/{b}","w":"%%"}`, `{"t":"yesterday","u":"a/b","v":"/a/{b","w":1}`, `{"t":"15:04:05","u":"x:\\y"}`,
	`"2026-01-02"`, `5`, `{"next":{"next":{"v":1}},"v":2}`, `{"next":{"v":"1"}}`, `{"a.b":1,"c/d~":2}`,
}

func decode(t *testing.T, s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

type flat struct{ Type, Path, Property, Description string }

type pair struct {
	src    string
	mine   *Schema
	theirs *gojsonschema.Schema
}

func compileBoth(t testing.TB) []pair {
	const url = "https://aopkit.dev/test/s.json"
	var out []pair
	for _, src := range keywordSchemas {
		set := NewSet()
		if err := set.Add(url, []byte(src)); err != nil {
			t.Fatal(err)
		}
		mine, err := set.Compile(url)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		sl := gojsonschema.NewSchemaLoader()
		sl.Draft = gojsonschema.Draft7
		sl.AutoDetect = false
		theirs, err := sl.Compile(gojsonschema.NewBytesLoader([]byte(src)))
		if err != nil {
			t.Fatalf("%s: gojsonschema: %v", src, err)
		}
		out = append(out, pair{src, mine, theirs})
	}
	return out
}

// same checks one decoded value against both validators.
func (p pair) same(t testing.TB, v any, val string) {
	var got, want []flat
	for _, e := range p.mine.Validate(v) {
		got = append(got, flat{e.Type, strings.Join(append([]string{"(root)"}, e.Path...), "."), e.Property, e.Description})
	}
	res, err := p.theirs.Validate(gojsonschema.NewRawLoader(v))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors() {
		prop, _ := e.Details()["property"].(string)
		if e.Type() != "required" && e.Type() != "additional_property_not_allowed" {
			prop = ""
		}
		want = append(want, flat{e.Type(), e.Context().String(), prop, e.Description()})
	}
	// gojsonschema walks properties in Go's map order: compare sorted by path and
	// member (lint/schema's pointers hold both).
	sortFlat(got)
	sortFlat(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema %s, value %s:\ndraft7       %q\ngojsonschema %q", p.src, val, got, want)
	}
}

func TestKeywordsAsGojsonschema(t *testing.T) {
	checked := 0
	for _, p := range compileBoth(t) {
		for _, val := range keywordValues {
			p.same(t, decode(t, val), val)
			checked++
		}
	}
	t.Logf("%d schema × value pairs", checked)
}

// FuzzKeywords: any JSON value (the first byte picks the schema).
func FuzzKeywords(f *testing.F) {
	pairs := compileBoth(f)
	for i, v := range keywordValues {
		f.Add(append([]byte{byte(i)}, v...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data[1:]))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		if _, err := marshalWithoutNumber(v); err != nil {
			return // gojsonschema panics on const and enum here (TestBeyondFloat64)
		}
		pairs[int(data[0])%len(pairs)].same(t, v, string(data[1:]))
	})
}

func sortFlat(fs []flat) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].Path+"\x00"+fs[j].Property < fs[j-1].Path+"\x00"+fs[j-1].Property; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

// Compile refuses what it does not implement, rather than validate differently.
func TestCompileRefuses(t *testing.T) {
	for _, src := range []string{
		`{"uniqueItems":true}`, `{"patternProperties":{"a":{}}}`, `{"items":[{}]}`, `{"format":"email"}`,
		`{"properties":{"a":{"$ref":"#/definitions/none"}}}`, `{"type":"nothing"}`, `{"minLength":-1}`, `"x"`,
		`{"properties":{"a":{"$id":"https://elsewhere/x.json"}}}`,
	} {
		set := NewSet()
		if err := set.Add("https://aopkit.dev/test/s.json", []byte(src)); err != nil {
			t.Fatal(err)
		}
		if _, err := set.Compile("https://aopkit.dev/test/s.json"); err == nil {
			t.Errorf("%s compiled", src)
		}
	}
	if err := NewSet().Add("https://aopkit.dev/test/s.json", bytes.Repeat([]byte("{"), 3)); err == nil {
		t.Error("a broken document was added")
	}
}

// A number beyond float64's range is none of a const's or an enum's values (where
// gojsonschema reports an internal error and panics).
func TestBeyondFloat64(t *testing.T) {
	const url = "https://aopkit.dev/test/s.json"
	set := NewSet()
	if err := set.Add(url, []byte(`{"properties":{"c":{"const":"x"},"e":{"enum":[1,"y"]},"d":{"const":[1]}}}`)); err != nil {
		t.Fatal(err)
	}
	s, err := set.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range s.Validate(decode(t, `{"c":1e400,"e":1e400,"d":[1e400]}`)) {
		types = append(types, strings.Join(e.Path, "/")+" "+e.Type)
	}
	sort.Strings(types)
	if strings.Join(types, ", ") != "c const, d const, e enum" {
		t.Errorf("errors %v", types)
	}
}

// A schema that would apply itself to the same value forever does not compile;
// recursion through members and items does.
func TestCycles(t *testing.T) {
	for src, ok := range map[string]bool{
		`{"$ref":"#"}`: false, `{"anyOf":[{"$ref":"#"}]}`: false, `{"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"allOf":[{"$ref":"#/definitions/a"}]}},"$ref":"#/definitions/a"}`: false,
		`{"properties":{"next":{"$ref":"#"}}}`: true, `{"items":{"anyOf":[{"$ref":"#"},{"type":"null"}]}}`: true,
		`{"additionalProperties":{"$ref":"#"},"not":{"type":"string"}}`: true,
	} {
		set := NewSet()
		if err := set.Add("https://aopkit.dev/test/s.json", []byte(src)); err != nil {
			t.Fatal(err)
		}
		s, err := set.Compile("https://aopkit.dev/test/s.json")
		if (err == nil) != ok {
			t.Errorf("%s: compile error %v", src, err)
		}
		if s != nil {
			s.Validate(decode(t, `{"next":{"next":[[null]]}}`))
		}
	}
}

// FuzzCompile: any schema document compiles or is refused, and validates values
// without panicking.
func FuzzCompile(f *testing.F) {
	for _, s := range keywordSchemas {
		f.Add([]byte(s))
	}
	values := []any{nil, true, json.Number("1e400"), json.Number("-0.5"), "x", []any{"a", json.Number("1")},
		map[string]any{"a": "x", "b": []any{map[string]any{}}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		set := NewSet()
		if set.Add("https://aopkit.dev/test/s.json", data) != nil {
			return
		}
		s, err := set.Compile("https://aopkit.dev/test/s.json#")
		if err != nil {
			return
		}
		for _, v := range values {
			s.Validate(v)
		}
	})
}

// FuzzIsInteger holds isInteger's digit loop to big.Rat's IsInt (gojsonschema's
// test), which it skips for a literal of an optional '-' and digits.
func FuzzIsInteger(f *testing.F) {
	for _, s := range []string{"0", "-0", "7", "-42", "007", "08", "1.0", "1.5", "1e3", "-1e-3", "0x10", "1_0", "-", "", "--1", "+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, ok := new(big.Rat).SetString(s)
		if got, want := isInteger(json.Number(s)), ok && q.IsInt(); got != want {
			t.Fatalf("isInteger(%q) = %v, big.Rat says %v", s, got, want)
		}
	})
}
