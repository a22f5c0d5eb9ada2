package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

type inner struct {
	S string `json:"s"`
}

type header struct {
	V string `json:"v"`
}

type sample struct {
	header
	S    string         `json:"s"`
	B    bool           `json:"b"`
	F    float64        `json:"f"`
	N    json.Number    `json:"n"`
	PS   *string        `json:"ps"`
	PB   *bool          `json:"pb"`
	PF   *float64       `json:"pf"`
	In   inner          `json:"in"`
	PIn  *inner         `json:"pin"`
	List []*string      `json:"list"`
	Objs []inner        `json:"objs"`
	Any  any            `json:"any"`
	Map  map[string]any `json:"map"`
	Skip string         `json:"-"`
}

func bindString(t *testing.T, in string) sample {
	t.Helper()
	n, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	var s sample
	Bind(n, &s)
	return s
}

// TestBind: each field takes a member of its type only; keys match exactly.
func TestBind(t *testing.T) {
	s := bindString(t, `{"v":"2.0","s":"x","b":true,"f":1.5,"n":12,"ps":"","pb":false,"pf":0,"in":{"s":"y"},"pin":{},
		"list":["a",1,null],"objs":[{"s":"z"},"no"],"any":[1,"a"],"map":{"k":2},"Skip":"no","-":"no"}`)
	if s.V != "2.0" || s.S != "x" || !s.B || s.F != 1.5 || s.N != "12" || s.PS == nil || *s.PS != "" || s.PB == nil || *s.PB || s.PF == nil || *s.PF != 0 {
		t.Errorf("scalars: %+v", s)
	}
	if s.In.S != "y" || s.PIn == nil || len(s.List) != 3 || *s.List[0] != "a" || s.List[1] != nil || s.List[2] != nil || len(s.Objs) != 2 || s.Objs[0].S != "z" || s.Objs[1].S != "" {
		t.Errorf("composites: %+v", s)
	}
	if a, ok := s.Any.([]any); !ok || a[0] != json.Number("1") || s.Map["k"] != json.Number("2") || s.Skip != "" {
		t.Errorf("any: %#v %#v %q", s.Any, s.Map, s.Skip)
	}
	// Wrong types, null, other spellings: zero.
	z := bindString(t, `{"V":"2.0","s":5,"b":"true","f":"1","n":"12","ps":null,"pb":1,"pf":1e400,"in":[],"pin":"x","list":{},"objs":null,"S":"x","map":[1]}`)
	if z.V != "" || z.S != "" || z.B || z.F != 0 || z.N != "" || z.PS != nil || z.PB != nil || z.PF != nil || z.PIn != nil || z.List != nil || z.Objs != nil || z.Map != nil {
		t.Errorf("zero expected: %+v", z)
	}
	n, _ := Parse([]byte(`{"s":5,"objs":[{"s":"ok"},{"s":[]}],"pf":1e400,"a/b":1,"ps":null}`))
	if got := strings.Join(Bind(n, &sample{}), " "); got != "/s /pf /objs/1/s" {
		t.Errorf("mistyped: %q", got)
	}
	if e := bindString(t, `{"list":[],"s":"a","s":"b"}`); e.List == nil || len(e.List) != 0 || e.S != "b" {
		t.Errorf("empty array / duplicate key: %+v", e)
	}
}

// TestParse: one JSON object, as encoding/json reads it.
func TestParse(t *testing.T) {
	for _, bad := range []string{``, `[]`, `"x"`, `{} {}`, `{"a":}`, "\uFEFF{}", `null`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	n, err := Parse([]byte("{\"s\":\"a\xffb\"}"))
	if err != nil {
		t.Fatal(err)
	}
	var s sample
	Bind(n, &s)
	var std struct{ S string }
	json.Unmarshal([]byte("{\"S\":\"a\xffb\"}"), &std)
	if s.S != std.S {
		t.Errorf("invalid UTF-8: %q, encoding/json %q", s.S, std.S)
	}
}
