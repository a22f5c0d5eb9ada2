package aof

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeEnvelope(t *testing.T) {
	env, err := DecodeEnvelope([]byte(`{"protocol":"aof","version":1,"type":"completion.report","taskId":"TASK-2026-02-09-057","TaskID":"x",` +
		`"fromAgent":null,"sentAt":7,"payload":{"outcome":"done","tests":{"total":3,"passed":"3"},"blockers":["a",2,"b"],"notes":""},"payload":{"outcome":"blocked","tests":{"total":3,"passed":"3"},"blockers":["a",2,"b"],"notes":""}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !env.Protocol.OK || env.Protocol.V != "aof" || env.Version.V != "1" || env.TaskID.V != "TASK-2026-02-09-057" {
		t.Errorf("envelope %+v", env)
	}
	if !env.FromAgent.Has() || env.FromAgent.OK || env.ToAgent.Has() || !env.SentAt.Has() || env.SentAt.OK || env.SentAt.AnyNumber() != json.Number("7") {
		t.Errorf("null, absent, wrong type: %+v %+v %+v", env.FromAgent, env.ToAgent, env.SentAt)
	}
	c := env.Completion
	if c == nil || c.Outcome.V != "blocked" || !c.Tests.OK || !c.Tests.V.Total.OK || c.Tests.V.Passed.OK || !c.Tests.V.Passed.Has() || c.Tests.V.Failed.Has() {
		t.Fatalf("completion %+v", c)
	}
	if got := Strings(c.Blockers); !reflect.DeepEqual(got, []string{"a", "b"}) || !c.Notes.OK || c.SummaryRef.Has() {
		t.Errorf("blockers %v, notes %+v", got, c.Notes)
	}
	if env.Status != nil || env.Handoff != nil || env.Ack != nil {
		t.Error("payload of another type decoded")
	}
	for in, want := range map[string]error{`null`: ErrNotObject, `[1]`: ErrNotObject, `"s"`: ErrNotObject} {
		if _, err := DecodeEnvelope([]byte(in)); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", in, err, want)
		}
	}
	for _, in := range []string{``, `{`, `{} {}`, `{"a":1}x`} {
		if _, err := DecodeEnvelope([]byte(in)); err == nil {
			t.Errorf("%s decodes", in)
		}
	}
	env, _ = DecodeEnvelope([]byte(`{"type":"handoff.accepted","payload":{"taskId":"T","accepted":false,"reason":null}}`))
	if env.Ack == nil || !env.Ack.Accepted.OK || env.Ack.Accepted.V || !env.Ack.Reason.Has() || env.Ack.Reason.OK {
		t.Errorf("ack %+v", env.Ack)
	}
	env, _ = DecodeEnvelope([]byte(`{"type":"status.update","payload":[]}`))
	if env.Status != nil || !env.Payload.Has() || env.Payload.OK {
		t.Errorf("a payload that is no object: %+v", env)
	}
}

// oldDecode is how conform/checks and the reference router read a line
// before DecodeEnvelope: a json.Decoder into a map, with UseNumber.
func oldDecode(b []byte) map[string]any {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&m) != nil || dec.More() {
		return nil
	}
	return m
}

// agrees reports where a decoded object of Members disagrees with the map
// encoding/json decodes the same object into ("" when nowhere): Has when the
// map has the member, AnyNumber the map's value, OK when that value has the
// member's type, V that value.
func agrees(m map[string]any, dst any) string {
	v := reflect.ValueOf(dst).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Tag.Get("json")
		if name == "-" {
			continue
		}
		f := v.Field(i)
		x, present := m[name]
		if f.MethodByName("Has").Call(nil)[0].Bool() != present || !reflect.DeepEqual(f.MethodByName("AnyNumber").Call(nil)[0].Interface(), x) {
			return name + ": Has or AnyNumber"
		}
		val := f.FieldByName("V")
		ok := f.FieldByName("OK").Bool()
		switch p := f.Addr().Interface().(type) {
		case *Member[[]Member[string]]:
			l, isList := x.([]any)
			if ok != isList || len(p.V) != len(l) {
				return name + ": list"
			}
			for j, it := range l {
				if s, isStr := it.(string); isStr != p.V[j].OK || s != p.V[j].V {
					return name + ": list item"
				}
			}
		case *Member[TestReport]:
			obj, isObj := x.(map[string]any)
			if ok != isObj {
				return name + ": object"
			}
			if w := agrees(obj, &p.V); isObj && w != "" {
				return name + "." + w
			}
		default:
			isType := x != nil && reflect.TypeOf(x) == val.Type()
			if ok != isType || isType && !reflect.DeepEqual(val.Interface(), x) {
				return name + ": OK or V"
			}
		}
	}
	return ""
}

// checkAgainstMap decodes b with DecodeEnvelope and with oldDecode and fails
// when they disagree.
func checkAgainstMap(t *testing.T, b []byte) {
	t.Helper()
	env, err := DecodeEnvelope(b)
	m := oldDecode(b)
	if (err == nil) != (m != nil) {
		t.Fatalf("%q: DecodeEnvelope error %v, map %v", b, err, m)
	}
	if err != nil {
		return
	}
	if w := agrees(m, env); w != "" {
		t.Fatalf("%q: envelope disagrees at %s", b, w)
	}
	p, _ := m["payload"].(map[string]any)
	var typed any
	switch {
	case env.Completion != nil:
		typed = env.Completion
	case env.Status != nil:
		typed = env.Status
	case env.Handoff != nil:
		typed = env.Handoff
	case env.Ack != nil:
		typed = env.Ack
	}
	if typed == nil {
		if p != nil && KnownType(env.Type.V) {
			t.Fatalf("%q: payload of %s not decoded", b, env.Type.V)
		}
		return
	}
	if w := agrees(p, typed); w != "" {
		t.Fatalf("%q: payload disagrees at %s", b, w)
	}
}

// corpus is every JSON line of fixtures/aof (one file is a message, or a
// transcript of one message a line, AOF/1 prefixed or not).
func corpus(tb testing.TB) [][]byte {
	var out [][]byte
	filepath.WalkDir("../../../fixtures/aof", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".golden") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) > 64<<10 {
			return nil
		}
		out = append(out, data)
		for _, line := range bytes.Split(data, []byte("\n")) {
			if s, _ := TrimPrefix(string(line)); strings.HasPrefix(s, "{") {
				out = append(out, []byte(s))
			}
		}
		return nil
	})
	if len(out) == 0 {
		tb.Fatal("no fixtures under fixtures/aof")
	}
	return out
}

// TestDecodeEnvelopeAgreesWithMap: on every fixture, the typed members are
// what a map decoding finds.
func TestDecodeEnvelopeAgreesWithMap(t *testing.T) {
	for _, b := range corpus(t) {
		checkAgainstMap(t, b)
	}
}

// FuzzDecodeEnvelope: DecodeEnvelope never panics, and agrees with the map
// decoding of the same line.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, b := range corpus(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"payload":{"tests":{"total":1e3,"passed":null}},"type":"completion.report","version":"1"}`))
	f.Add([]byte(`{"payload":{"acceptanceCriteria":[1,"a",null]},"type":"handoff.request"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgainstMap(t, b)
		DecodeHandoff(b)
	})
}

var benchLine = []byte(`{"protocol":"aof","version":1,"type":"completion.report","taskId":"TASK-2026-02-09-057","fromAgent":"swe-backend","toAgent":"dispatcher","sentAt":"2026-02-09T21:10:00.000Z","payload":{"outcome":"done","summaryRef":"outputs/summary.md","deliverables":["src/a.go","src/b.go"],"tests":{"total":3,"passed":3,"failed":0},"notes":"All tests pass."}}`)

func BenchmarkDecodeEnvelope(b *testing.B) {
	for b.Loop() {
		if _, err := DecodeEnvelope(benchLine); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeMap is the map[string]any decoding DecodeEnvelope replaces.
func BenchmarkDecodeMap(b *testing.B) {
	for b.Loop() {
		if oldDecode(benchLine) == nil {
			b.Fatal("no object")
		}
	}
}
