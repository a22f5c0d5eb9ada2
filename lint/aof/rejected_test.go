package aof

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRejectedEventTaskID: a protocol.message.rejected event records the id
// of a message that was rejected, which by definition may name no task (a
// malformed id, a task not found): AOF-DIR-005 does not judge it. Any other
// event with such a taskId is still flagged.
func TestRejectedEventTaskID(t *testing.T) {
	for _, tt := range []struct {
		name, event string
		flagged     bool
	}{
		{"rejected, malformed id", `{"eventId":1,"type":"protocol.message.rejected","timestamp":"2026-02-09T21:00:00Z","actor":"agent-x","taskId":"task-42","payload":{"reason":"invalid_envelope"}}`, false},
		{"rejected, task not found", `{"eventId":1,"type":"protocol.message.rejected","timestamp":"2026-02-09T21:00:00Z","actor":"agent-x","taskId":"TASK-2026-02-09-999","payload":{"reason":"task_not_found"}}`, false},
		{"rejected, upstream id", `{"eventId":1,"type":"protocol.message.rejected","timestamp":"2026-02-09T21:00:00Z","actor":"agent-x","taskId":"TASK-2026-02-09-057-01","payload":{"reason":"task_not_found"}}`, false},
		{"received, malformed id", `{"eventId":1,"type":"protocol.message.received","timestamp":"2026-02-09T21:00:00Z","actor":"agent-x","taskId":"task-42","payload":{}}`, true},
		{"rejected, no actor", `{"eventId":1,"type":"protocol.message.rejected","timestamp":"2026-02-09T21:00:00Z","taskId":"task-42","payload":{"reason":"invalid_json"}}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, data := range map[string]string{
				"tasks/ready/TASK-2026-02-09-057.md": "---\nid: TASK-2026-02-09-057\nstatus: ready\n---\n",
				"events/events.jsonl":                tt.event + "\n",
			} {
				p := filepath.Join(dir, rel)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := LintDataDir(dir, driverFiles())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res {
				for _, d := range r.Diagnostics {
					if d.Rule == DirEvents.ID {
						got = append(got, d.Message)
					}
				}
			}
			if (len(got) > 0) != tt.flagged {
				t.Errorf("AOF-DIR-005: %s; want flagged %v", strings.Join(got, "; "), tt.flagged)
			}
		})
	}
}
