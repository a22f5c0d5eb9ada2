package orchmsg

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
)

// FuzzScenarioTask: whatever a scenario's task holds (the notification payload,
// "task", "orchestrator" with its team), reading it never panics: it is read or
// refused as a harness error.
func FuzzScenarioTask(f *testing.F) {
	b, _ := json.Marshal(baseTask())
	f.Add(b)
	f.Add([]byte(`{"taskId":"t","orchestrator":{"team":[{"id":"a","task":{"id":"x","dependencies":null}}],"user":{"answers":[{"after":"1s"}]}}}`))
	f.Add([]byte(`{"taskId":7,"task":[],"orchestrator":{"team":[{"id":""}]}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, task []byte) {
		if !json.Valid(task) {
			return
		}
		sc := &conform.Scenario{ID: "fuzz", Protocol: Protocol, Task: task}
		h := harness.New(context.Background(), harness.Config{Scenario: sc, Scratch: t.TempDir()})
		e, payload, err := newEngine(h)
		if err != nil {
			return
		}
		if len(e.members) == 0 || e.members[0].id != AgentID {
			t.Fatalf("no agent under test: %+v", e.members)
		}
		if _, err := json.Marshal(e.members[0].notification("notify:task-assigned", payload)); err != nil {
			t.Fatal(err)
		}
		for _, tk := range e.tasks {
			tk.view()
		}
	})
}

// FuzzAgentLines: whatever the agent writes, the engine answers or ignores it
// without panicking, and the run ends (virtual time: the scenario deadline stops
// an agent that never finishes).
func FuzzAgentLines(f *testing.F) {
	for _, s := range []string{
		`{"type":"request:get-task","id":"r1","timestamp":"2000-01-01T00:00:00Z","payload":{"taskId":"task-1"}}`,
		`{"type":"request:submit-task","id":"r2","timestamp":"2000-01-01T00:00:00Z","payload":{"name":"x","dependencies":["task-1",7],"priority":2.5,"requiredCapabilities":[1,"go"]}}`,
		`{"type":"request:ask-user","id":"r3","timestamp":"x","payload":{"question":"q","options":[{"value":7},"x"],"timeout":1e300}}`,
		`{"type":"request:query-agents","id":"r4","payload":{"role":["worker"],"capabilities":"go"}}` + "\n" + `{"type":"request:query-tasks","id":"r5","payload":{"limit":1e20}}`,
		`{"type":"event:progress","id":"e1","payload":{"taskId":"task-1","progress":1}}`,
		`{"type":"event:error","id":"e2","payload":{"taskId":"task-1","error":"x","recoverable":"no"}}`,
		`{"type":"request:get-task","id":{"a":1},"agentId":5,"payload":null}`,
		"not json\n{\"type\":7}\n[]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		var lines []timedLine
		for i, l := range bytes.Split(out, []byte("\n")) {
			lines = append(lines, timedLine{time.Duration(i) * time.Millisecond, string(l)})
		}
		r := play(t, scenario("fuzz", 60*time.Second, nil), scripted(lines...), "", "")
		if r.err != nil {
			t.Fatal(r.err)
		}
		if len(r.sess.Attempts) != 1 || r.sess.Attempts[0].End.IsZero() {
			t.Fatal("the run did not end")
		}
	})
}
