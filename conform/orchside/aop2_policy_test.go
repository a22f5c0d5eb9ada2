package orchside

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
)

// attemptN sets task.attempt in a TASK line.
func attemptN(task string, n int) string {
	return strings.Replace(task, `"attempt":1`, `"attempt":`+string(rune('0'+n)), 1)
}

func emitted(seq int, line string) conform.Record {
	return conform.Record{Seq: seq, From: Judged, Stream: "stdout", Msg: []byte(line)}
}

// TestPolicyChecks judges synthetic observations of the retry, limit and
// version checks: each passes on what the reference engine does and fails on
// the engine fault that names it.
func TestPolicyChecks(t *testing.T) {
	compact := func(id string) string {
		c, err := harness.Compact([]byte(scenarioTask(t, id)))
		if err != nil {
			t.Fatal(err)
		}
		return string(c)
	}
	retry := compact("orch-aop2-retry")
	claude := retarget(retry, "CLAUDE", "claude-opus-4-6")
	v2x := compact("orch-aop2-version-2x")
	unv := compact("orch-aop2-unversioned")
	hard := compact("orch-aop2-hard-limit")
	soft := compact("orch-aop2-soft-limit")
	report := func(codes string) *conform.Session {
		s := session(hard, nil)
		s.Records = []conform.Record{emitted(9, `{"message_type":"EVENT","event":"SESSION_FINAL_REPORT","status":"REJECTED","errors":[`+codes+`]}`)}
		return s
	}
	withReport := func(s *conform.Session, codes string) *conform.Session {
		s.Records = []conform.Record{emitted(9, `{"message_type":"EVENT","event":"SESSION_FINAL_REPORT","status":"FAILED","errors":[`+codes+`]}`)}
		return s
	}
	rb := compact("orch-aop2-rollback")
	rbf := compact("orch-aop2-rollback-failed")
	failure := Event{At: at("300ms"), Kind: "stdout", Line: `{"message_type":"RESPONSE","task_status":{"state":"FAILED","final_signal":"FAILURE"},"error_details":{"error_code":"E_UNKNOWN"}}`, Key: "RESPONSE"}
	snapGone := func(s *conform.Session) *conform.Session {
		FactFiles.Set(s, map[string]*string{"workspace/.aop_snapshots/out.txt.before": nil})
		return s
	}
	resp2x := Event{At: at("300ms"), Kind: "stdout", Line: `{"aop_version":"2.1.0","message_type":"RESPONSE","task_status":{"state":"COMPLETED","final_signal":"SUCCESS"}}`, Key: "RESPONSE"}
	cases := []struct {
		check, name string
		s           *conform.Session
		want        conform.Verdict
	}{
		{"aop2/orch/2.2/retried-then-fallback", "retry, then ALL_ERRORS", session(retry, nil, launch(retry, exit("300ms", 1)), launch(attemptN(retry, 2), exit("300ms", 1)), launch(attemptN(claude, 3), exit("300ms", 1))), conform.Pass},
		{"aop2/orch/2.2/retried-then-fallback", "ALL_ERRORS at once", session(retry, nil, launch(retry, exit("300ms", 1)), launch(attemptN(claude, 2), exit("300ms", 1))), conform.Fail},
		{"aop2/orch/2.2/retried-then-fallback", "no retry, no fallback", session(retry, nil, launch(retry, exit("300ms", 1))), conform.Fail},
		{"aop2/orch/2.2/retried-then-fallback", "retried twice", session(retry, nil, launch(retry, exit("300ms", 1)), launch(attemptN(retry, 2), exit("300ms", 1)), launch(attemptN(retry, 3), exit("300ms", 1))), conform.Fail},
		{"aop2/orch/2.2/retried-then-fallback", "same attempt number", session(retry, nil, launch(retry, exit("300ms", 1)), launch(retry, exit("300ms", 1)), launch(attemptN(claude, 3), exit("300ms", 1))), conform.Fail},
		{"aop2/orch/2.2/retry-backoff", "waited 3.5s", session(retry, nil, launch(retry, exit("300ms", 1)), Launch{Start: at("3.9s"), Events: []Event{{At: at("3.91s"), Kind: "stdin", Line: attemptN(retry, 2), Key: "TASK"}}}), conform.Pass},
		{"aop2/orch/2.2/retry-backoff", "at once", session(retry, nil, launch(retry, exit("300ms", 1)), Launch{Start: at("350ms"), Events: []Event{{At: at("360ms"), Kind: "stdin", Line: attemptN(retry, 2), Key: "TASK"}}}), conform.Fail},
		{"aop2/orch/12/all-models-exhausted-code", "reported", withReport(session(retry, nil, launch(retry, exit("300ms", 1))), `"E_PROCESS_CRASH","E_ALL_MODELS_EXHAUSTED"`), conform.Pass},
		{"aop2/orch/12/all-models-exhausted-code", "not reported", withReport(session(retry, nil, launch(retry, exit("300ms", 1))), `"E_PROCESS_CRASH"`), conform.Fail},
		{"aop2/orch/12/unknown-code", "E_UNKNOWN", withReport(session(rb, nil, launch(rb, failure, exit("310ms", 0))), `"E_UNKNOWN"`), conform.Pass},
		{"aop2/orch/12/unknown-code", "called a crash", withReport(session(rb, nil, launch(rb, failure, exit("310ms", 0))), `"E_PROCESS_CRASH"`), conform.Fail},
		{"aop2/orch/12/unknown-code", "the agent crashed", withReport(session(rb, nil, launch(rb, failure, exit("310ms", 1))), `"E_PROCESS_CRASH"`), conform.NotTested},
		{"aop2/orch/12/rollback-failed-code", "reported", withReport(snapGone(session(rbf, nil, launch(rbf, failure, exit("310ms", 0)))), `"E_UNKNOWN","E_ROLLBACK_FAILED"`), conform.Pass},
		{"aop2/orch/12/rollback-failed-code", "not reported", withReport(snapGone(session(rbf, nil, launch(rbf, failure, exit("310ms", 0)))), `"E_UNKNOWN"`), conform.Fail},
		{"aop2/orch/12/rollback-failed-code", "snapshot still there", withReport(session(rbf, nil, launch(rbf, failure, exit("310ms", 0))), `"E_UNKNOWN"`), conform.NotTested},
		{"aop2/orch/1.1/accept-2x", "accepted", session(v2x, nil, launch(v2x, resp2x, exit("310ms", 0))), conform.Pass},
		{"aop2/orch/1.1/accept-2x", "re-dispatched", session(v2x, nil, launch(v2x, resp2x, exit("310ms", 0)), launch(attemptN(v2x, 2), resp2x, exit("310ms", 0))), conform.Fail},
		{"aop2/orch/1.1/accept-2x", "v1 prompt", session(v2x, nil, Launch{Start: t0, Events: []Event{{At: at("10ms"), Kind: "stdin", Line: "# AOP TASK TASK-001"}, exit("310ms", 0)}}), conform.Fail},
		{"aop2/orch/1.3/unversioned-not-v2", "rejected", session(unv, nil), conform.Pass},
		{"aop2/orch/1.3/unversioned-not-v2", "dispatched as v2", session(unv, nil, launch(unv, exit("300ms", 0))), conform.Fail},
		{"aop2/orch/4/hard-limit-rejected", "rejected", report(`"E_CONTEXT_OVERFLOW"`), conform.Pass},
		{"aop2/orch/4/hard-limit-rejected", "wrong code", report(`"E_SCHEMA_VALIDATION"`), conform.Fail},
		{"aop2/orch/4/hard-limit-rejected", "dispatched", session(hard, nil, launch(hard, exit("300ms", 0))), conform.Fail},
		{"aop2/orch/4/soft-limit-warned", "rejected", session(soft, nil), conform.Fail},
		{"aop2/orch/4/soft-limit-warned", "no codes at all", session(soft, nil, launch(soft, exit("300ms", 0))), conform.NotApplicable},
	}
	for _, c := range cases {
		t.Run(c.check+"/"+c.name, func(t *testing.T) {
			o := conform.LookupCheck(c.check).Run(c.s)
			if o.Verdict != c.want {
				t.Errorf("%s, want %s: %s (expected %q, actual %q)", o.Verdict, c.want, o.Message, o.Expected, o.Actual)
			}
		})
	}
}
