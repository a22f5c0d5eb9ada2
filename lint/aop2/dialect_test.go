package aop2_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/aop2"
)

// TestUpstreamRefuses: each thing the upstream implementation required beyond the
// contract is an info at its pointer, and nothing more: the message stays valid.
func TestUpstreamRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, msg string
		want      []string
	}{
		{"response without timing or message", `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"RESPONSE","session_id":"S","task_id":"T",
"agent":{"name":"a","provider":"OTHER","model":"m"},"execution_summary":{"summary":"s","actions":["a"]},"task_status":{"state":"COMPLETED","final_signal":"SUCCESS"}}`,
			[]string{"/task_status/message", "/timing"}},
		{"fractional duration", `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"RESPONSE","session_id":"S","task_id":"T",
"agent":{"name":"a","provider":"OTHER","model":"m"},"execution_summary":{"summary":"s","actions":["a"]},"task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"m"},
"timing":{"started_at":"2026-02-26T14:00:00Z","completed_at":"2026-02-26T14:00:12Z","duration_seconds":12.5}}`,
			[]string{"/timing/duration_seconds"}},
		{"heartbeat without agent", `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":"2026-02-26T14:00:00Z","progress_percentage":45}`,
			[]string{"/agent"}},
		{"progress without percentage or message", `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"PROGRESS_UPDATE","session_id":"S","task_id":"T","timestamp":"2026-02-26T14:00:00Z","agent":"Emma","progress":{"current_phase":"P"}}`,
			[]string{"/progress/message", "/progress/percentage"}},
		{"rollback without trigger", `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"ROLLBACK_INITIATED","session_id":"S","task_id":"T","timestamp":"2026-02-26T14:00:00Z"}`,
			[]string{"/trigger"}},
		{"escalation without escalated_by", `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"PRIORITY_ESCALATION","session_id":"S","task_id":"T","timestamp":"2026-02-26T14:00:00Z","old_priority":"NORMAL","new_priority":"HIGH"}`,
			[]string{"/escalated_by"}},
		{"minimal task", minimalTask, nil},
	} {
		var got []string
		for _, d := range lintAll(tc.msg) {
			if d.Severity > lint.Info {
				t.Errorf("%s: a finding beyond info: %s %s", tc.name, d.Rule, d.Message)
			}
			if d.Rule == aop2.UpstreamRefuses.ID {
				got = append(got, d.Pointer)
				if !strings.Contains(d.Message, "upstream") {
					t.Errorf("%s: the info does not name the upstream dialect: %s", tc.name, d.Message)
				}
			}
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: infos at %v, want %v", tc.name, got, tc.want)
		}
	}
}
