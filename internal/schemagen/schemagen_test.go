package schemagen

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// The generator refuses what it does not implement instead of passing it.
func TestRefusesUnknownKeywords(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
		`{"items":[{"type":"string"}]}`,
		`{"enum":[{"a":1}]}`,
		`{"$ref":"https://example.com/other.json"}`,
		`{"dependencies":{"a":["b"]}}`,
	} {
		fsys := fstest.MapFS{"p/a.schema.json": {Data: []byte(s)}}
		if _, err := Generate(fsys, "https://aopkit.dev/schemas/"); err == nil {
			t.Errorf("%s: generated without error", s)
		}
	}
	// More checked members than the one-pass bit set holds.
	var many []string
	for i := 0; i < 65; i++ {
		many = append(many, fmt.Sprintf("%q", fmt.Sprint("m", i)))
	}
	fsys := fstest.MapFS{"p/a.schema.json": {Data: []byte(`{"type":"object","required":[` + strings.Join(many, ",") + `]}`)}}
	if _, err := Generate(fsys, "https://aopkit.dev/schemas/"); err == nil || !strings.Contains(err.Error(), "64") {
		t.Errorf("65 required members: %v", err)
	}
	fsys = fstest.MapFS{"p/a.schema.json": {Data: []byte(`{"type":"object","required":["a"],"properties":{"a":{"$ref":"b.schema.json#/definitions/X"}}}`)},
		"p/b.schema.json": {Data: []byte(`{"definitions":{"X":{"type":"integer","minimum":0}}}`)}}
	src, err := Generate(fsys, "https://aopkit.dev/schemas/")
	if err != nil || !strings.Contains(string(src), `"p/a.schema.json"`) {
		t.Fatalf("%v\n%s", err, src)
	}
}

// A pattern the generator makes no automaton of (not anchored at both ends, an
// assertion inside) keeps its regexp; an anchored one does not.
func TestPatternsWithoutAutomaton(t *testing.T) {
	for _, p := range []string{`^a`, `a$`, `^a\bb$`, `^(?m:a$)\n$`} {
		if _, err := buildDFA(p); err == nil {
			t.Errorf("%s: made an automaton", p)
		}
	}
	for _, p := range []string{`^\S+$`, `^(?i)t$`, `^(?i)[a-c]$`, `^$`, `^[0-9]{2}(:?[0-9]{2})?$`} {
		if _, err := buildDFA(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	fsys := fstest.MapFS{"p/a.schema.json": {Data: []byte(`{"type":"object","properties":{"a":{"type":"string","pattern":"x"},"b":{"type":"string","pattern":"^x$"}}}`)}}
	src, err := Generate(fsys, "https://aopkit.dev/schemas/")
	if err != nil || !strings.Contains(string(src), `lazyRegexp("x")`) || !strings.Contains(string(src), `&dfa{pattern: "^x$"`) {
		t.Fatalf("%v\n%s", err, src)
	}
}
