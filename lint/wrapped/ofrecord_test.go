package wrapped

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/xeipuuv/gojsonschema"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/lint/schema/ofrecord"
	schemafs "github.com/aopkit/aopkit/schemas/wrapped"
)

// gojsonschema, the validator of record, on the official schemas: each revision's
// document in one loader, each definition compiled as a root reached by reference
// (as aoplint did before lint/schema/draft7).
var (
	recordMu      sync.Mutex
	recordLoaders = map[*Revision]*gojsonschema.SchemaLoader{}
	recordDefs    = map[string]*gojsonschema.Schema{}
)

func ofRecord(t testing.TB, r *Revision, def string, v *jsonread.Node) []string {
	recordMu.Lock()
	defer recordMu.Unlock()
	sl := recordLoaders[r]
	if sl == nil {
		data, err := fs.ReadFile(schemafs.FS, r.file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		delete(doc, "$schema")
		sl = gojsonschema.NewSchemaLoader()
		sl.Draft = gojsonschema.Draft7
		sl.AutoDetect = false
		if err := sl.AddSchema(baseURL+r.file, gojsonschema.NewRawLoader(doc)); err != nil {
			t.Fatal(err)
		}
		recordLoaders[r] = sl
	}
	key := r.file + "#" + def
	s := recordDefs[key]
	if s == nil {
		var err error
		s, err = sl.Compile(gojsonschema.NewReferenceLoader(baseURL + r.file + "#/" + r.defsKey + "/" + def))
		if err != nil {
			t.Fatalf("%s %s: %v", r.Name, def, err)
		}
		recordDefs[key] = s
	}
	es, err := ofrecord.Check(s, v)
	if err != nil {
		t.Fatal(err)
	}
	return errorStrings(es)
}

// draft7Errors are the errors Revision.Validate works from, before it drops the
// summaries of unions.
func draft7Errors(t testing.TB, r *Revision, def string, v *jsonread.Node) []string {
	s, err := r.def(def)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Name, def, err)
	}
	return errorStrings(schema.Check(s, v.Interface()))
}

func errorStrings[E any](es []E) []string {
	var out []string
	for _, e := range es {
		b, _ := json.Marshal(e)
		out = append(out, string(b))
	}
	return out
}

// defsFor are the definitions a message is judged by: the unions of the oracle,
// the definition of its method, and A2A's objects.
func defsFor(r *Revision, msg *jsonread.Node) []string {
	var out []string
	for _, d := range []string{"JSONRPCMessage", "JSONRPCRequest", "JSONRPCResponse", "ClientRequest", "ServerRequest",
		"ClientNotification", "ServerNotification", "A2ARequest", "Message", "Task", "TaskStatusUpdateEvent",
		"TaskArtifactUpdateEvent", "Artifact", "AgentCard"} {
		if r.Defines(d) {
			out = append(out, d)
		}
	}
	if m := msg.Get("method"); m != nil && m.IsString() {
		if d := r.Method(m.Str); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// draft7 (what aoplint runs) reports exactly gojsonschema's errors for the
// published examples and every mutant of them, under every definition they are
// judged by, in every revision.
func TestDraft7AgreesWithGojsonschema(t *testing.T) {
	seeds, _ := filepath.Glob("testdata/*/*.json")
	sort.Strings(seeds)
	if len(seeds) < 8 {
		t.Fatalf("%d seeds", len(seeds))
	}
	full := os.Getenv("AOPKIT_SCHEMA_DIFF") == "full"
	checks, invalid := 0, 0
	for i, seed := range seeds {
		data, err := os.ReadFile(seed)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", seed, err)
		}
		msgs := []*jsonread.Node{parse(t, data)}
		for j, m := range mutations(v) {
			// A twentieth of the mutants by default (CI runs this under -race);
			// AOPKIT_SCHEMA_DIFF=full checks them all.
			if !full && (i+j)%20 != 0 {
				continue
			}
			b, _ := json.Marshal(m.value)
			msgs = append(msgs, parse(t, b))
		}
		for _, msg := range msgs {
			for _, r := range append(append([]*Revision{}, MCP...), A2A...) {
				for _, d := range defsFor(r, msg) {
					got, want := draft7Errors(t, r, d, msg), ofRecord(t, r, d, msg)
					checks++
					if len(want) > 0 {
						invalid++
					}
					if !reflect.DeepEqual(got, want) {
						b, _ := json.Marshal(msg.Interface())
						t.Fatalf("%s %s %s on %s:\ndraft7       %q\ngojsonschema %q", filepath.Base(seed), r.Name, d, b, got, want)
					}
				}
			}
		}
	}
	t.Logf("%d checks, %d with errors", checks, invalid)
	if invalid == 0 || invalid == checks {
		t.Errorf("the corpus does not separate: %d of %d with errors", invalid, checks)
	}
}

// FuzzDraft7 holds draft7 to gojsonschema on any input, under every definition
// of every revision that judges it.
func FuzzDraft7(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.json")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, _, err := jsonread.Parse(data)
		if err != nil || msg == nil || !ofrecord.Comparable(msg) {
			return
		}
		for _, r := range append(append([]*Revision{}, MCP...), A2A...) {
			for _, d := range defsFor(r, msg) {
				if got, want := draft7Errors(t, r, d, msg), ofRecord(t, r, d, msg); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %s:\ndraft7       %q\ngojsonschema %q", r.Name, d, got, want)
				}
			}
		}
	})
}
