package checks

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// TestAOFTypedMembers: the aof checks read the typed envelope as they read
// the map before it: an absent member, a member of another type and null
// are told apart where a check tells them apart, and numbers keep their
// literal.
func TestAOFTypedMembers(t *testing.T) {
	t.Parallel()
	const env = `{"protocol":"aof","version":%V,"type":"%T","taskId":"TASK-2026-02-09-057","fromAgent":"agent-under-test","toAgent":"dispatcher","sentAt":"2026-02-09T21:10:00.000Z","payload":%P}`
	const report = `{"outcome":"done","summaryRef":"outputs/summary.md","tests":{"total":3,"passed":3,"failed":0},"notes":"ok"}`
	line := func(version, typ, payload string) string {
		return strings.NewReplacer("%V", version, "%T", typ, "%P", payload).Replace(env)
	}
	for _, c := range []struct {
		check, line string
		want        conform.Verdict
		says        string
	}{
		{"aof/envelope/fields", line("1", "completion.report", report), conform.Pass, ""},
		{"aof/envelope/fields", line("1.0", "completion.report", report), conform.Pass, ""},
		{"aof/envelope/fields", line(`"1"`, "completion.report", report), conform.Fail, "version must be 1 (got 1)"},
		{"aof/envelope/fields", line("null", "completion.report", report), conform.Fail, "version must be 1 (got <nil>)"},
		{"aof/envelope/fields", line("2", "completion.report", report), conform.Fail, "version must be 1 (got 2)"},
		{"aof/envelope/fields", line("1", "completion.report", `[]`), conform.Fail, "payload object is required"},
		{"aof/completion/payload", line("1", "completion.report", report), conform.Pass, ""},
		{"aof/completion/payload", line("1", "completion.report", strings.Replace(report, `"total":3`, `"total":"3"`, 1)), conform.Fail, "tests {total, passed, failed} is required"},
		{"aof/completion/payload", line("1", "completion.report", strings.Replace(report, `"notes":"ok"`, `"notes":null`, 1)), conform.Fail, "notes is required"},
		{"aof/completion/payload", line("1", "completion.report", strings.Replace(report, `"notes":"ok"`, `"Notes":"ok"`, 1)), conform.Fail, "notes is required"},
		{"aof/completion/payload", line("1", "completion.report", strings.Replace(report, `"done"`, `"blocked"`, 1)), conform.Fail, "outcome blocked needs blockers"},
		{"aof/completion/payload", line("1", "completion.report", `"x"`), conform.Fail, "summaryRef is required"},
		{"aof/status/valid-transition", line("1", "status.update", `{"status":"done"}`), conform.Fail, "in-progress → done"},
		{"aof/status/valid-transition", line("1", "status.update", `{"status":"review"}`), conform.Pass, ""},
		{"aof/status/valid-transition", line("1", "status.update", `{"status":7}`), conform.Pass, ""},
	} {
		b := newSession(&conform.Attempt{})
		b.s.Scenario.Task = []byte(`{"taskId":"TASK-2026-02-09-057","metadata":{"delegationDepth":0}}`)
		b.add(conform.ActorAgent, "stdout", "", 0, c.line)
		o := run(t, c.check, b.s)
		if got := o.Message + "\n" + o.Expected + "\n" + o.Actual; o.Verdict != c.want || !strings.Contains(got, c.says) {
			t.Errorf("%s on %s: %v %q, want %v saying %q", c.check, c.line, o.Verdict, got, c.want, c.says)
		}
	}
}
