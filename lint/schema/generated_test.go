package schema_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/internal/schemagen"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/lint/schema/generated"
	"github.com/aopkit/aopkit/lint/schema/ofrecord"
	"github.com/aopkit/aopkit/schemas"
)

// The checked-in validators are what the generator makes of the schemas now.
func TestGeneratedIsCurrent(t *testing.T) {
	want, err := schemagen.Generate(schemas.FS, schemas.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("generated/validators.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("lint/schema/generated/validators.go is stale: run go generate ./lint/schema/generated")
	}
}

// schemaFiles lists the schema files with a generated validator.
func schemaFiles(t testing.TB) []string {
	files, err := fs.Glob(schemas.FS, "*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []string
	for _, f := range files {
		if generated.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// agree checks, on root, the generated verdict against gojsonschema's and, where
// aoplint asks draft7 (the generated validator does not say Valid), draft7's
// diagnostics against gojsonschema's.
func agree(t testing.TB, file string, root *jsonread.Node, what string) bool {
	want, err := ofrecord.Validate(file, root)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	v := generated.Validate(file, root)
	if v != generated.Unsure && (v == generated.Valid) != (len(want) == 0) {
		t.Errorf("%s on %s: generated says %v, gojsonschema %d errors %v", file, what, v, len(want), want)
		return false
	}
	if v == generated.Valid {
		return true
	}
	s, err := schema.Compiled(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if got := schema.Check(s, root.Interface()); !reflect.DeepEqual(got, want) {
		t.Errorf("%s on %s %s:\ndraft7       %q\ngojsonschema %q", file, what, compact(root), got, want)
		return false
	}
	return true
}

func compact(n *jsonread.Node) string {
	b, _ := json.Marshal(n.Interface())
	if len(b) > 300 {
		b = append(b[:300], "..."...)
	}
	return string(b)
}

// corpus is every JSON value of the fixtures: whole files and lines.
func corpus(t testing.TB) map[string][][]byte {
	out := map[string][][]byte{} // protocol directory → documents
	err := filepath.WalkDir("../../fixtures", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := filepath.Ext(p)
		if ext != ".json" && ext != ".jsonl" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../../fixtures", p)
		proto := strings.Split(filepath.ToSlash(rel), "/")[0]
		if proto == "reference" || proto == "scenarios" {
			proto = ""
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimPrefix(bytes.TrimSpace(line), []byte("AOF/1 "))
			if len(line) > 0 {
				out[proto] = append(out[proto], line)
			}
		}
		if ext == ".json" {
			out[proto] = append(out[proto], data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mutants returns variations of a document that cross the schemas' edges.
func mutants(root *jsonread.Node) []*jsonread.Node {
	var out []*jsonread.Node
	var walk func(n *jsonread.Node, set func(*jsonread.Node))
	repl := []*jsonread.Node{
		{Kind: jsonread.Null}, {Kind: jsonread.Bool, Bool: true}, {Kind: jsonread.String, Str: ""},
		{Kind: jsonread.String, Str: "x"}, {Kind: jsonread.Number, Str: "-1"}, {Kind: jsonread.Number, Str: "0"},
		{Kind: jsonread.Number, Str: "1.5"}, {Kind: jsonread.Number, Str: "2.0"}, {Kind: jsonread.Number, Str: "1e2"},
		{Kind: jsonread.Array}, {Kind: jsonread.Object},
	}
	walk = func(n *jsonread.Node, set func(*jsonread.Node)) {
		for _, r := range repl {
			set(r)
			out = append(out, clone(root))
		}
		set(n)
		switch n.Kind {
		case jsonread.Object:
			members := n.Members
			for i := range members {
				// Drop the member, then replace its value.
				n.Members = append(append([]jsonread.Member(nil), members[:i]...), members[i+1:]...)
				out = append(out, clone(root))
				// A duplicate key with a null value, before the member (the
				// last one counts: the verdict is the original's) and after it.
				dup := jsonread.Member{Key: members[i].Key, Value: &jsonread.Node{Kind: jsonread.Null}}
				n.Members = append(append(append([]jsonread.Member(nil), members[:i]...), dup), members[i:]...)
				out = append(out, clone(root))
				n.Members = append(append(append([]jsonread.Member(nil), members[:i+1]...), dup), members[i+1:]...)
				out = append(out, clone(root))
				n.Members = members
				m := &members[i]
				v := m.Value
				walk(v, func(x *jsonread.Node) { m.Value = x })
				m.Value = v
			}
			n.Members = append(members, jsonread.Member{Key: "zz_unknown", Value: &jsonread.Node{Kind: jsonread.Number, Str: "1"}})
			out = append(out, clone(root))
			n.Members = members
		case jsonread.Array:
			for i := range n.Items {
				v := n.Items[i]
				walk(v, func(x *jsonread.Node) { n.Items[i] = x })
				n.Items[i] = v
			}
		}
	}
	walk(root, func(*jsonread.Node) {})
	return out
}

func clone(n *jsonread.Node) *jsonread.Node {
	c := *n
	if n.Items != nil {
		c.Items = make([]*jsonread.Node, len(n.Items))
		for i, it := range n.Items {
			c.Items[i] = clone(it)
		}
	}
	if n.Members != nil {
		c.Members = make([]jsonread.Member, len(n.Members))
		for i, m := range n.Members {
			c.Members[i] = jsonread.Member{Key: m.Key, Value: clone(m.Value)}
		}
	}
	return &c
}

// The generated validators agree with gojsonschema on every fixture and on
// mutants of the valid ones, against every schema of the fixture's protocol.
func TestGeneratedAgreesWithGojsonschema(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine, two validators: run without -race (race_test.go)")
	}
	files := schemaFiles(t)
	docs := corpus(t)
	full := os.Getenv("AOPKIT_SCHEMA_DIFF") == "full"
	checks, decided := 0, 0
	for proto, list := range docs {
		var mine []string
		for _, f := range files {
			if proto == "" || strings.HasPrefix(f, proto+"/") {
				mine = append(mine, f)
			}
		}
		for i, data := range list {
			if !full && (i%3 != 0 || (proto == "" && i%15 != 0)) {
				continue // a sample by default: AOPKIT_SCHEMA_DIFF=full checks them all
			}
			root, _, err := jsonread.Parse(data)
			if err != nil || root == nil {
				continue
			}
			nodes := []*jsonread.Node{root}
			// Every fourth small document's mutants with AOPKIT_SCHEMA_DIFF=full
			// (8 M checks, minutes); by default a sample that keeps CI fast.
			if full && i%4 == 0 && len(data) < 4096 {
				nodes = append(nodes, mutants(root)...)
			} else if !testing.Short() && i%30 == 0 && len(data) < 4096 {
				ms := mutants(root)
				for j := 0; j < len(ms); j += 60 {
					nodes = append(nodes, ms[j])
				}
			}
			for _, n := range nodes {
				for _, f := range mine {
					checks++
					if generated.Validate(f, n) != generated.Unsure {
						decided++
					}
					if !agree(t, f, n, proto) {
						return
					}
				}
			}
		}
	}
	t.Logf("%d checks, %d decided by the generated code", checks, decided)
}

// FuzzGenerated holds the generated validators to gojsonschema on any input: the
// first byte picks the schema.
func FuzzGenerated(f *testing.F) {
	files := schemaFiles(f)
	for _, list := range corpus(f) {
		for i, d := range list {
			if i%8 == 0 && len(d) < 2048 {
				f.Add(append([]byte{byte(i)}, d...))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		file := files[int(data[0])%len(files)]
		root, _, err := jsonread.Parse(data[1:])
		if err != nil || root == nil || !ofrecord.Comparable(root) {
			return
		}
		agree(t, file, root, "fuzz input")
	})
}

// Members gives the members a schema defines, through $ref and the combinators,
// with the shapes of their values.
func TestMembers(t *testing.T) {
	sh := generated.Members("aop2/response.schema.json")
	if sh == nil || !sh.Object {
		t.Fatal("aop2/response.schema.json: no object shape")
	}
	for _, k := range []string{"aop_version", "message_type", "task_status", "extensions"} {
		if _, ok := sh.Member(k); !ok {
			t.Errorf("member %q unknown", k)
		}
	}
	for _, k := range []string{"", "bogus", "zzz", "AOP_VERSION"} {
		if _, ok := sh.Member(k); ok {
			t.Errorf("member %q known", k)
		}
	}
	for i := 1; i < len(sh.Props); i++ {
		if sh.Props[i-1].Key >= sh.Props[i].Key {
			t.Fatalf("props not sorted: %q before %q", sh.Props[i-1].Key, sh.Props[i].Key)
		}
	}
	if generated.Members("aop2/common.schema.json") != nil || generated.Members("no/such.json") != nil {
		t.Error("a file without properties at its root has a shape")
	}
}
