package aop2

import (
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// FuzzViewFields: the view's one pass over a message's members finds what
// root.Get finds for each key (the last of a repeated key, nothing in a
// non-object).
func FuzzViewFields(f *testing.F) {
	for _, s := range []string{
		`{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T14:00:00Z"}`,
		`{"message_type":"TASK","session":{"session_id":"S","created_at":"2026-02-26T14:00:00Z"},"task":{"task_id":"T"}}`,
		`{"message_type":"RESPONSE","task_id":"T","session_id":"S","timing":{"completed_at":"x"},"task_id":"U"}`,
		`{"event":1,"event":"HEARTBEAT","timing":null,"":"e"}`,
		`{"message_type":"EVENT","event":"PROGRESS_UPDATE","progress":{"percentage":5},"progress_percentage":3,"progress":7}`,
		`["message_type","TASK"]`, `"TASK"`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, _, err := jsonread.Parse(data)
		if err != nil || root == nil {
			return
		}
		var got fields
		got.read(root)
		for _, c := range []struct {
			key string
			n   *jsonread.Node
		}{
			{"message_type", got.messageType}, {"event", got.event}, {"task_id", got.taskID}, {"session_id", got.sessionID},
			{"timestamp", got.timestamp}, {"task", got.task}, {"session", got.session}, {"timing", got.timing},
			{"progress_percentage", got.progressPercentage}, {"progress", got.progress},
		} {
			if want := root.Get(c.key); c.n != want {
				t.Errorf("%s: the pass found %p, Get %p", c.key, c.n, want)
			}
		}
	})
}
