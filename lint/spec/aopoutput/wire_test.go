package aopoutput

import (
	"encoding/json"
	"testing"
)

func TestDecodeTaskLine(t *testing.T) {
	if tl, err := DecodeTaskLine([]byte(`{"task":"Run the build","task_type":"build","Task":"x"}`)); err != nil || tl != (TaskLine{"Run the build", "build"}) {
		t.Errorf("good line: %+v %v", tl, err)
	}
	if tl, err := DecodeTaskLine([]byte(`{"task":5,"task_type":"build"}`)); err == nil || tl.TaskType != "build" {
		t.Errorf("mistyped task: %+v %v", tl, err)
	}
	for _, bad := range []string{`null`, `[]`, `{"task":"x"`, ``} {
		if _, err := DecodeTaskLine([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	d, err := DecodeDetails([]byte(`{"aop_version":"1.0.0","task":"t","duration_ms":"12","results":{"n":1},"metadata":null}`))
	if err != nil || d.Task != "t" || d.DurationMS != nil || !d.HasValue("duration_ms") || d.HasValue("metadata") || d.Results["n"] == nil {
		t.Errorf("details: %+v %v", d, err)
	}
}

// FuzzDecodeWire: the task-line and details decoders never panic; a task line
// they accept re-encodes to one they read the same.
func FuzzDecodeWire(f *testing.F) {
	for _, s := range []string{`{"task":"t","task_type":"build"}`, `{"task":1}`, `{"aop_version":"1.0.0","results":{"a":[1,2]},"duration_ms":1e400}`, "{\"task\":\"\xff\"}", `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := DecodeDetails(b); err == nil {
			for _, k := range DetailsMembers {
				d.HasValue(k)
			}
		}
		tl, err := DecodeTaskLine(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(tl)
		if err != nil {
			t.Fatal(err)
		}
		if tl2, err := DecodeTaskLine(again); err != nil || tl2 != tl {
			t.Errorf("%q: %+v, re-encoded %s reads %+v %v", b, tl, again, tl2, err)
		}
	})
}
