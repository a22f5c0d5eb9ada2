package orchmsg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/spec/wire"
)

// at is the value at keys of v as encoding/json decodes it into an any: how the
// checks read messages before Decode (with jsonval.At, since removed).
func at(v any, keys ...string) any {
	if len(keys) == 0 {
		return v
	}
	m, _ := v.(map[string]any) // nil when v is no object: no member
	return at(m[keys[0]], keys[1:]...)
}

// agreeWithMap holds Decode's answer on line to a decoding into an any: the
// same lines decode, and every member Message reads is the same value, present
// and of its type exactly when it is in the map.
func agreeWithMap(t *testing.T, line []byte) {
	t.Helper()
	m, err := Decode(line)
	var v any
	mapErr := json.Unmarshal(line, &v)
	_, isObj := v.(map[string]any)
	if (err == nil) != (mapErr == nil && isObj) {
		t.Fatalf("Decode(%q) error %v; into a map: error %v, object %v", line, err, mapErr, isObj)
	}
	if err != nil {
		return
	}
	str := func(name string, f Field[string], keys ...string) {
		want, ok := at(v, keys...).(string)
		if got, gotOK := f.Get(); got != want || gotOK != ok {
			t.Errorf("%q: %s = %q %v, the map has %q %v", line, name, got, gotOK, want, ok)
		}
		parent, _ := at(v, keys[:len(keys)-1]...).(map[string]any)
		if _, has := parent[keys[len(keys)-1]]; f.Has() != has {
			t.Errorf("%q: %s present %v, in the map %v", line, name, f.Has(), has)
		}
	}
	str("type", m.Type, "type")
	str("id", m.ID, "id")
	str("timestamp", m.Timestamp, "timestamp")
	str("agentId", m.AgentID, "agentId")
	str("correlationId", m.CorrelationID, "correlationId")
	str("taskId", m.TaskID, "taskId")
	p, pOK := m.Payload.Get()
	if _, ok := at(v, "payload").(map[string]any); ok != pOK {
		t.Errorf("%q: payload object %v, in the map %v", line, pOK, ok)
	}
	str("payload.taskId", p.TaskID, "payload", "taskId")
	str("payload.name", p.Name, "payload", "name")
	str("payload.level", p.Level, "payload", "level")
	str("payload.task.id", p.Task.V.ID, "payload", "task", "id")
	str("error.code", m.Error.V.Code, "error", "code")
	prog, ok := at(v, "payload", "progress").(float64)
	if got, gotOK := p.Progress.Get(); got != prog || gotOK != ok {
		t.Errorf("%q: payload.progress = %v %v, the map has %v %v", line, got, gotOK, prog, ok)
	}
	rec, ok := at(v, "payload", "recoverable").(bool)
	if got, gotOK := p.Recoverable.Get(); got != rec || gotOK != ok {
		t.Errorf("%q: payload.recoverable = %v %v, the map has %v %v", line, got, gotOK, rec, ok)
	}
	deps, ok := at(v, "payload", "dependencies").([]any)
	if got, gotOK := p.Dependencies.Get(); !reflect.DeepEqual(got, deps) || gotOK != ok {
		t.Errorf("%q: payload.dependencies = %v %v, the map has %v %v", line, got, gotOK, deps, ok)
	}
	if !reflect.DeepEqual(m.ID.Any(), at(v, "id")) {
		t.Errorf("%q: id.Any() = %#v, the map has %#v", line, m.ID.Any(), at(v, "id"))
	}
}

var decodeSeeds = []string{
	`{"type":"event:progress","id":"evt-1","timestamp":"2026-02-04T14:30:00Z","payload":{"taskId":"task-123","progress":0.5,"message":"half"}}`,
	`{"type":"event:error","id":7,"timestamp":null,"payload":{"taskId":"t","error":"x","recoverable":false}}`,
	`{"type":"response:success","id":"r","correlationId":"q","timestamp":"t","payload":{"task":{"id":"task-sub-001","status":"queued"}}}`,
	`{"type":"response:error","error":{"code":"NOT_FOUND","message":"m","details":{"taskId":"x"}}}`,
	`{"type":"request:submit-task","payload":{"name":"n","dependencies":["a",3,null],"priority":2}}`,
	`{"Type":"event:log","ID":"x","payload":{"TaskId":"t","taskid":"u"}}`,
	`{"type":"a","type":"event:log","payload":"text","payload":{"level":"info"}}`,
	`{"type":"event:log","payload":{"progress":1e400}}`,
	`{"payload":null,"error":[1],"id":{"a":1}}`,
	`[1,2]`, `null`, `"s"`, `{`, ``, `{"type":"event:progress"} x`,
}

// TestDecodeAgreesWithMap: the seeds, read by Decode and into a map.
func TestDecodeAgreesWithMap(t *testing.T) {
	for _, s := range decodeSeeds {
		agreeWithMap(t, []byte(s))
	}
}

// TestDecodeExactNames: a member is matched by its exact name only (encoding/json
// would take "ID" for "id"), and of duplicates the last wins.
func TestDecodeExactNames(t *testing.T) {
	m, err := Decode([]byte(`{"Type":"event:log","ID":"x","payload":{"TaskId":"t"},"id":"a","id":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Type.Has() || m.Payload.V.TaskID.Has() || m.ID.V != "b" {
		t.Errorf("Decode = type %q, payload.taskId %q, id %q; want no type, no taskId, id b", m.Type.Raw, m.Payload.V.TaskID.Raw, m.ID.V)
	}
}

// FuzzDecode: Decode never panics and agrees with a decoding into a map.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { agreeWithMap(t, line) })
}

// TestSchemaMembers: every member the schemas (schemas/orchmsg) name at the top
// level, in the payload and in a response's error is a field of Message,
// Payload or ErrorBody, and every field of theirs is a member some schema
// names (a misspelled tag fails here).
func TestSchemaMembers(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "schemas", "orchmsg", "*-*.schema.json"))
	if len(files) != len(Types) {
		t.Fatalf("%d schemas, want %d", len(files), len(Types))
	}
	named := map[string]map[string]bool{"top": {}, "payload": {}, "error": {}, "task": {}}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		for k, p := range s.Properties {
			named["top"][k] = true
			for pk := range p.Properties {
				named[map[string]string{"payload": "payload", "error": "error"}[k]][pk] = true
			}
		}
	}
	delete(named, "")
	named["top"]["taskId"] = true // the task_notification dialect's (Message.TaskID)
	for _, k := range []string{"id", "name", "status", "requiredRole", "dependencies", "result", "payload"} {
		named["task"][k] = true // common.schema.json#/definitions/Task (the members TaskInfo reads)
	}
	for where, typ := range map[string]reflect.Type{"top": reflect.TypeFor[Message](), "payload": reflect.TypeFor[Payload](), "error": reflect.TypeFor[ErrorBody](), "task": reflect.TypeFor[TaskInfo]()} {
		tags := map[string]bool{}
		for _, n := range wire.MemberNames(typ) {
			tags[n] = true
			if !named[where][n] {
				t.Errorf("%s has a field for %q, which no schema names in the %s", typ.Name(), n, where)
			}
		}
		var missing []string
		for n := range named[where] {
			if !tags[n] {
				missing = append(missing, n)
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			t.Errorf("%s has no field for %s, which the schemas name in the %s", typ.Name(), strings.Join(missing, ", "), where)
		}
	}
}
