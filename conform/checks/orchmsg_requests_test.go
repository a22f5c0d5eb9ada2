package checks

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// TestOrchmsgPayloadRequirement: orchmsg/requests/payload asks what its
// requirement says and what backs it (schemas/orchmsg, aoplint ORCH-SCHEMA-001):
// a submit-task without its task definition's type fails (before: the check
// passed it while its lint step failed it, under a requirement naming only
// name), and a progress given as a percentage is told so (before: "payload.taskId
// and payload.progress (0..1) are required" although both were there).
func TestOrchmsgPayloadRequirement(t *testing.T) {
	t.Parallel()
	const head = `{"id":"req-3f2b9c1e-7d4a-4e8b-9c6d-5a1b2c3d4e5f","timestamp":"2026-11-22T10:00:00Z",`
	for _, tc := range []struct {
		name, key, msg string
		want           conform.Verdict
		says           string
	}{
		{"submit without type", "request:submit-task", head + `"type":"request:submit-task","payload":{"name":"Fix bug"}}`, conform.Fail, "payload.type and payload.name are required"},
		{"submit without name", "request:submit-task", head + `"type":"request:submit-task","payload":{"type":"implementation"}}`, conform.Fail, "payload.type and payload.name are required"},
		{"submit", "request:submit-task", head + `"type":"request:submit-task","payload":{"type":"implementation","name":"Fix bug"}}`, conform.Pass, ""},
		{"progress percentage", "event:progress", head + `"type":"event:progress","payload":{"taskId":"task-1","progress":20}}`, conform.Fail, "payload.progress is 20, outside 0..1 (a fraction, not a percentage)"},
		{"progress without task", "event:progress", head + `"type":"event:progress","payload":{"progress":0.2}}`, conform.Fail, "payload.taskId and payload.progress (0..1) are required"},
		{"progress", "event:progress", head + `"type":"event:progress","payload":{"taskId":"task-1","progress":0.2}}`, conform.Pass, ""},
	} {
		s := newSession(&conform.Attempt{}).add(conform.ActorAgent, "stdout", tc.key, 0, tc.msg).s
		o := run(t, "orchmsg/requests/payload", s)
		if o.Verdict != tc.want || !strings.Contains(o.Message, tc.says) {
			t.Errorf("%s: %s %q, want %s saying %q", tc.name, o.Verdict, o.Message, tc.want, tc.says)
		}
	}
}
