package jsonread

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		code string // "" ok, else SyntaxError code
		prob string // a Problem code expected
	}{
		{`{"a":1}`, "", ""},
		{`  [1, 2.5e3, -0, "x\u00e9\ud83d\ude00", true, false, null]  `, "", ""},
		{`{"a":1,"a":2}`, "", "duplicate-key"},
		{"\xEF\xBB\xBF{}", "", "bom"},
		{``, "empty", ""},
		{`{"a":1} {}`, "trailing", ""},
		{`{"a":}`, "syntax", ""},
		{`{"a":1,}`, "syntax", ""},
		{`[1,]`, "syntax", ""},
		{`01`, "trailing", ""},
		{`"\x"`, "syntax", ""},
		{"\"caf\xe9\"", "utf8", ""},
		{strings.Repeat("[", 300) + strings.Repeat("]", 300), "depth", ""},
		{`{"a" 1}`, "syntax", ""},
		{"\"a\nb\"", "syntax", ""},
	}
	for _, tc := range cases {
		_, probs, err := Parse([]byte(tc.in))
		code := ""
		if se, ok := err.(*SyntaxError); ok {
			code = se.Code
		} else if err != nil {
			t.Fatalf("%q: unexpected error type %v", tc.in, err)
		}
		if code != tc.code {
			t.Errorf("%q: code %q, want %q (%v)", tc.in, code, tc.code, err)
		}
		if tc.prob != "" && (len(probs) == 0 || probs[0].Code != tc.prob) {
			t.Errorf("%q: problems %v, want %s", tc.in, probs, tc.prob)
		}
	}
}

func TestPointersAndPositions(t *testing.T) {
	in := "{\n \"a/b\": {\"c~d\": [10, {\"e\": \"x\"}]}\n}"
	root, _, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	n := root.Lookup("/a~1b/c~0d/1/e")
	if n == nil || n.String() != "x" {
		t.Fatalf("lookup failed: %+v", n)
	}
	if got := in[n.Offset : n.Offset+3]; got != `"x"` {
		t.Errorf("offset points at %q", got)
	}
	_, probs, _ := Parse([]byte(`{"a":[{"x":1},{"b/c":1,"b/c":2}]}`))
	if len(probs) != 1 || probs[0].Pointer != "/a/1/b~1c" {
		t.Errorf("duplicate pointer: %+v", probs)
	}
	if nn, p := root.Nearest("/a~1b/zz/1"); nn == nil || p != "/a~1b" {
		t.Errorf("nearest = %q", p)
	}
}

// FuzzParse checks the reader against encoding/json: on valid UTF-8 without a BOM
// and within the depth bound, both accept the same inputs and decode the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"x"`, `1e5`, `{"a":1,"a":2}`, `[1,]`, `{"a":"\u00e9\ud800"}`, "\xEF\xBB\xBF{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, probs, err := Parse(data)
		if !utf8.Valid(data) || strings.HasPrefix(string(data), "\xEF\xBB\xBF") {
			return
		}
		if se, ok := err.(*SyntaxError); ok && se.Code == "depth" {
			return
		}
		valid := json.Valid(data)
		if (err == nil) != valid {
			t.Fatalf("jsonread err=%v, encoding/json valid=%v for %q", err, valid, data)
		}
		if err != nil || len(probs) > 0 {
			return
		}
		var want any
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if got := root.Interface(); !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %#v, encoding/json %#v", got, want)
		}
	})
}

// Duplicate keys are reported up to MaxProblems, then counted in one more problem.
func TestProblemsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"k":0`)
	for i := 0; i < MaxProblems+500; i++ {
		b.WriteString(`,"k":0`)
	}
	b.WriteString(`}`)
	_, problems, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != MaxProblems+1 || !strings.Contains(problems[MaxProblems].Message, "500 more duplicate keys") {
		t.Fatalf("%d problems, last %+v", len(problems), problems[len(problems)-1])
	}
}
