package conform

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"testing"
)

// A record's detail is written as the map it replaced wrote it (keys sorted, no
// "detail" when empty), and reads back typed from a transcript.
func TestDetailJSON(t *testing.T) {
	rec := Record{Aopkit: TranscriptVersion, Seq: 1, From: ActorHarness, Event: EventAgentExit,
		Detail: Details(KeyExitCode.Is(0), KeySignal.Is("SIGKILL"), KeyHarnessSlipMS.Is(0), KeyMeasures.Is([]string{"a"}))}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"aopkit":"transcript/1","seq":1,"at":"","from":"harness","event":"agent-exit","detail":{"code":0,"harness_slip_ms":0,"measures":["a"],"signal":"SIGKILL"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if c, ok := KeyExitCode.Of(back.Detail); !ok || c != 0 {
		t.Errorf("code = %v, %v", c, ok)
	}
	if ms := KeyMeasures.Get(back.Detail); !reflect.DeepEqual(ms, []string{"a"}) {
		t.Errorf("measures = %v", ms)
	}
	if _, ok := KeyReason.Of(back.Detail); ok {
		t.Error("reason read from a detail without it")
	}
	// A key of another type under the same name does not read it.
	if _, ok := KeyCode.Of(back.Detail); ok {
		t.Error("the exit code read as a string")
	}
	empty, _ := json.Marshal(Record{From: ActorAgent, Detail: Details()})
	if string(empty) != `{"aopkit":"","seq":0,"at":"","from":"agent"}` {
		t.Errorf("empty detail written: %s", empty)
	}
}

// A fact is found by its key, not its name.
func TestFacts(t *testing.T) {
	s := &Session{}
	if _, ok := FactAOFHandoff.Of(s); ok {
		t.Error("a fact never set was found")
	}
	FactAOFHandoff.Set(s, true)
	other := NewFact[bool](FactAOFHandoff.String())
	if !FactAOFHandoff.Get(s) || other.Get(s) {
		t.Errorf("facts: %v %v", FactAOFHandoff.Get(s), other.Get(s))
	}
}

// The vocabulary has no two events of one name, and no two keys of one name and
// type (two keys may share a name when their events give it different types).
func TestVocabularyUnique(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "evidence.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != 1 {
			return true
		}
		var id string
		switch v := vs.Values[0].(type) {
		case *ast.BasicLit: // Event, Actor, By, LifeSign constants
			if t, ok := vs.Type.(*ast.Ident); ok {
				id = t.Name + " " + v.Value
			}
		case *ast.CallExpr: // key[T]("name")
			if ix, ok := v.Fun.(*ast.IndexExpr); ok && len(v.Args) == 1 {
				id = "key " + types.ExprString(ix.Index) + " " + types.ExprString(v.Args[0])
			}
		}
		if id == "" {
			return true
		}
		if prev, dup := seen[id]; dup {
			t.Errorf("%s and %s are both %s", prev, vs.Names[0].Name, id)
		}
		seen[id] = vs.Names[0].Name
		return true
	})
	if len(seen) < 100 {
		t.Errorf("only %d declarations read: the test no longer reads evidence.go", len(seen))
	}
}
