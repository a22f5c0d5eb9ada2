package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
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
	n, err := Parse([]byte("{\"s\":\"a\xff\xfe\xe2\x82b\"}"))
	if err != nil {
		t.Fatal(err)
	}
	var s sample
	Bind(n, &s)
	var std struct{ S string }
	json.Unmarshal([]byte("{\"S\":\"a\xff\xfe\xe2\x82b\"}"), &std)
	if s.S != std.S {
		t.Errorf("invalid UTF-8: %q, encoding/json %q", s.S, std.S)
	}
}

type fields struct {
	ID    Field[string]          `json:"id"`
	N     Field[float64]         `json:"n"`
	B     Field[bool]            `json:"b"`
	Num   Field[json.Number]     `json:"num"`
	Any   Field[any]             `json:"any"`
	Map   Field[map[string]any]  `json:"map"`
	List  Field[[]any]           `json:"list"`
	Inner Field[fieldsInner]     `json:"inner"`
	Items Field[[]Field[string]] `json:"items"`
	Plain string                 `json:"plain"`
}

type fieldsInner struct {
	Name Field[string] `json:"name"`
}

func readFields(t *testing.T, in string, nums Numbers) (fields, []string) {
	t.Helper()
	m, err := Read([]byte(in))
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	var f fields
	return f, m.Bind(m.Root, &f, nums)
}

// TestField: exact names, the last duplicate, null and other types kept as
// sent, numbers by the Numbers asked for.
func TestField(t *testing.T) {
	f, bad := readFields(t, `{"ID":"x","id":1,"id":"b","n":null,"inner":{"Name":"no","name":"yes"},"items":["a",1,null],"plain":2}`, Float64)
	if v, ok := f.ID.Get(); v != "b" || !ok || string(f.ID.Raw) != `"b"` {
		t.Errorf("id = %q %v %s, want b", v, ok, f.ID.Raw)
	}
	if !f.N.Has() || f.N.OK || f.N.Any() != nil || f.B.Has() {
		t.Errorf("n = %+v, want present null; b %+v absent", f.N, f.B)
	}
	if f.Inner.V.Name.V != "yes" || len(f.Items.V) != 3 || !f.Items.V[0].OK || f.Items.V[1].OK || !f.Items.V[2].Has() || f.Items.V[2].OK {
		t.Errorf("inner %+v, items %+v", f.Inner, f.Items)
	}
	if strings.Join(bad, " ") != "/plain" {
		t.Errorf("mistyped %q, want /plain only (a Field keeps its own)", bad)
	}
	f, _ = readFields(t, `{"id":7,"n":"1","inner":[1],"num":"1","big":12345678901234567890,"b":true,"any":{"a":[1.5]},"map":{"k":1e400},"list":[1,"a"]}`, Float64)
	if f.ID.OK || f.ID.Any() != 7.0 || f.N.OK || f.Inner.OK || !f.Inner.Has() || f.Num.OK || !f.B.V {
		t.Errorf("wrong types: %+v", f)
	}
	if a, _ := f.Any.V.(map[string]any); !f.Any.OK || a["a"].([]any)[0] != 1.5 || f.Map.OK || f.Map.V != nil || !f.List.OK || f.List.V[0] != 1.0 {
		t.Errorf("Float64: any %#v, map %+v, list %#v", f.Any, f.Map, f.List)
	}
	f, _ = readFields(t, `{"num":12345678901234567890,"map":{"k":1e400},"list":[1]}`, UseNumber)
	if f.Num.V != "12345678901234567890" || !f.Map.OK || f.Map.V["k"] != json.Number("1e400") || f.List.V[0] != json.Number("1") {
		t.Errorf("UseNumber: %+v", f)
	}
	if n := (Field[any]{Raw: json.RawMessage(`12345678901234567890`)}).AnyNumber(); n != json.Number("12345678901234567890") {
		t.Errorf("AnyNumber = %#v", n)
	}
	var u Field[string]
	if err := json.Unmarshal([]byte(`{"a":"x"}`), &struct{ A *Field[string] }{&u}); err != nil || u.V != "x" || string(u.Raw) != `"x"` {
		t.Errorf("UnmarshalJSON: %+v %v", u, err)
	}
	if b, err := json.Marshal(fields{ID: u}); err != nil || !strings.Contains(string(b), `"id":"x"`) {
		t.Errorf("MarshalJSON: %s %v", b, err)
	}
}

// TestReadTrailing: Read hands back the first value with the trailing error.
func TestReadTrailing(t *testing.T) {
	m, err := Read([]byte("{\"a\":\"\xff\"} }"))
	se, ok := err.(*jsonread.SyntaxError)
	if m == nil || !ok || se.Code != "trailing" || m.Text[se.Offset] != '}' || m.Root.Get("a").Str != "\uFFFD" {
		t.Fatalf("Read = %+v, %v", m, err)
	}
	if Decode([]byte(`{} x`), &fields{}, Float64) == nil || Decode([]byte(`[]`), &fields{}, Float64) == nil {
		t.Error("Decode accepts no single object")
	}
}

// TestFieldLayout: bindField sets a Field's V, OK and Raw by their indexes.
func TestFieldLayout(t *testing.T) {
	ft := reflect.TypeFor[Field[string]]()
	for i, name := range []string{"V", "OK", "Raw"} {
		if ft.Field(i).Name != name {
			t.Errorf("Field's field %d is %s, bindField sets it as %s", i, ft.Field(i).Name, name)
		}
	}
	if !isField(ft) || isField(reflect.TypeFor[fieldsInner]()) {
		t.Error("isField")
	}
}
