package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// TestJudgeOneCause: lint warnings never sit under a MUST (they are SHOULD-grade),
// and a check NOT-JUDGED for want of evidence is not failed by the lint errors of
// the same root cause (a reused executionId is read by AOS-SEQ-008 as an
// unmodified re-send: before, modify-enforced failed on it).
func TestJudgeOneCause(t *testing.T) {
	t.Parallel()
	call := func(id int, exec string) json.RawMessage {
		return json.RawMessage(`{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"steps/toolCallRequest","params":{"toolCallRequest":{"executionId":"` + exec + `"}}}`)
	}
	sc := &conform.Scenario{ID: "s", Protocol: "aos", Checks: []string{"aos/5.1/modify-enforced", "aos/lint/messages-valid"}}
	sess := &conform.Session{Scenario: sc, Scale: 1, Attempts: []*conform.Attempt{{N: 1}},
		Records: []conform.Record{
			{Seq: 1, From: "agent", Stream: "http", Key: "steps/toolCallRequest", Msg: call(1, "exec-1"), Attempt: 1},
			{Seq: 2, From: "agent", Stream: "http", Key: "steps/toolCallRequest", Msg: call(2, "exec-1"), Attempt: 1},
		},
		Lint: []conform.LintFinding{
			{Seq: 2, Rule: "AOS-SEQ-008", Severity: "error", Message: "re-sent without the modification"},
			{Seq: 1, Rule: "AOS-TIME-002", Severity: "warning", Message: "a warning"},
		},
	}
	got := map[string]conform.Result{}
	for _, r := range judge(Options{Protocol: "aos", Command: []string{"agent"}}, sc, sess, nil) {
		got[r.Check] = r
	}
	if r := got["aos/5.1/modify-enforced"]; r.Verdict != conform.NotJudged || r.DependsOn != "aos/4.6/unique-execution-ids" || r.Rerun == "" {
		t.Errorf("modify-enforced: %s (depends on %q, rerun %q) %s; want NOT-JUDGED on aos/4.6/unique-execution-ids", r.Verdict, r.DependsOn, r.Rerun, r.Message)
	}
	r := got["aos/lint/messages-valid"]
	if r.Verdict != conform.Pass {
		t.Errorf("messages-valid: %s %s; want PASS (AOS-SEQ-008 is claimed by modify-enforced, the other finding is a warning)", r.Verdict, r.Message)
	}
	for _, l := range r.Lint {
		if l.Severity != "error" {
			t.Errorf("a lint %s (%s) under the MUST check %s", l.Severity, l.Rule, r.Check)
		}
	}
}

// TestJudgeUnexplainedLint: a lint error the root cause does not explain still
// fails a NOT-JUDGED check (an EVENT over the hard payload limit in a run without
// RESPONSE: response-size has no RESPONSE to judge, but the finding is genuine).
func TestJudgeUnexplainedLint(t *testing.T) {
	t.Parallel()
	sc := &conform.Scenario{ID: "s", Protocol: "aop2", Checks: []string{"aop2/4/response-size", "aop2/1.2/response-ids"}}
	sess := &conform.Session{Scenario: sc, Scale: 1, Attempts: []*conform.Attempt{{N: 1}},
		Records: []conform.Record{{Seq: 1, From: "agent", Stream: "stdout", Key: "EVENT/PROGRESS_UPDATE", Msg: json.RawMessage(`{"message_type":"EVENT"}`), Attempt: 1}},
		Lint:    []conform.LintFinding{{Seq: 1, Rule: "AOP2-LIMIT-002", Severity: "error", Message: "hard payload limit exceeded"}},
	}
	got := map[string]conform.Result{}
	for _, r := range judge(Options{Protocol: "aop2", Command: []string{"agent"}}, sc, sess, nil) {
		got[r.Check] = r
	}
	if r := got["aop2/4/response-size"]; r.Verdict != conform.Fail || !strings.Contains(r.Message, "AOP2-LIMIT-002") {
		t.Errorf("response-size: %s %s; want FAIL on the unexplained AOP2-LIMIT-002", r.Verdict, r.Message)
	}
	if r := got["aop2/1.2/response-ids"]; r.Verdict != conform.NotJudged {
		t.Errorf("response-ids: %s %s; want NOT-JUDGED (no RESPONSE)", r.Verdict, r.Message)
	}
}
