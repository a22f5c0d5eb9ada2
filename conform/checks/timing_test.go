package checks

import (
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// TestHeartbeatIntervalMargin: aop2/6.1/heartbeat-interval, judged by aoplint's
// AOP2-SEQ-006, carries the finding's measurement and limit, so that the runner
// can tell a failure far beyond the harness's slip from a FLAKY one.
func TestHeartbeatIntervalMargin(t *testing.T) {
	s := newSession(&conform.Attempt{}).s
	s.Lint = []conform.LintFinding{{Seq: 4, Rule: "AOP2-SEQ-006", Severity: "warning", Message: "it is 0.9 s behind",
		Measured: 900 * time.Millisecond, Limit: 700 * time.Millisecond}}
	o := run(t, "aop2/6.1/heartbeat-interval", s)
	if o.Verdict != conform.Fail || o.Measured != 900*time.Millisecond || o.Limit != 700*time.Millisecond {
		t.Errorf("%s measured %s limit %s; want FAIL measured 900ms limit 700ms", o.Verdict, o.Measured, o.Limit)
	}
}

// TestArtifactsHonestNoArtifacts: a RESPONSE that reports no output artifacts
// leaves aop2/5/artifacts-honest NOT-APPLICABLE in every scenario, also where an
// earlier attempt was stopped (stale recovery), where the runner keeps a
// NOT-TESTED as it is: a correct agent reached SHOULD 2/3 by it.
func TestArtifactsHonestNoArtifacts(t *testing.T) {
	resp := `{"aop_version":"2.0.2-C","message_type":"RESPONSE","task_id":"TASK-001","execution_summary":{"summary":"done","actions":["wrote out.txt"]}}`
	s := newSession(&conform.Attempt{}, &conform.Attempt{}).s
	s.Records = append(s.Records, conform.Record{Seq: 1, From: "agent", Stream: "stdout", Key: "RESPONSE", Attempt: 2, Msg: []byte(resp)})
	if o := run(t, "aop2/5/artifacts-honest", s); o.Verdict != conform.NotApplicable {
		t.Errorf("%s (%s), want NOT-APPLICABLE", o.Verdict, o.Message)
	}
}
