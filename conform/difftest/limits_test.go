package difftest

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// TestResponseSize: AOP2-LIMIT-003 and aop2/4/response-size measure a RESPONSE
// alike (§4: 500KB of the compact message, lint/spec/aop2.OverSize), at the
// limit and across it, written compact or with white space.
func TestResponseSize(t *testing.T) {
	const head = `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"RESPONSE","session_id":"S","task_id":"T",` +
		`"agent":{"name":"a","provider":"CODEX","model":"m"},"task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"done"},` +
		`"extensions":{"x_blob":"`
	const tail = `"}}`
	for _, tc := range []struct {
		compact, spaces int // compact size, white space added outside strings
		over            bool
	}{
		{aop2spec.MaxResponseBytes, 0, false},
		{aop2spec.MaxResponseBytes + 1, 0, true},
		{aop2spec.MaxResponseBytes - 10, 1000, false}, // over as written, within compact
		{aop2spec.MaxResponseBytes + 1, 1000, true},
	} {
		blob := strings.Repeat("a", tc.compact-len(head)-len(tail))
		msg := head + blob + tail
		msg = msg[:1] + strings.Repeat(" ", tc.spaces) + msg[1:]
		lintOver := false
		for _, d := range linter.LintBytes("message.json", []byte(msg), linter.Options{Protocol: "aop2"}).Diagnostics {
			if d.Rule == "AOP2-LIMIT-003" && d.Severity == lint.Error {
				lintOver = true
			}
		}
		b := newBuilder()
		b.msg("stdout", "RESPONSE", msg)
		o := conform.LookupCheck("aop2/4/response-size").Run(b.s)
		if checkOver := o.Verdict == conform.Fail; lintOver != tc.over || checkOver != tc.over {
			t.Errorf("compact %d + %d spaces: want over=%v; AOP2-LIMIT-003 over=%v, aop2/4/response-size %s (%s)", tc.compact, tc.spaces, tc.over, lintOver, o.Verdict, o.Message)
		}
	}
}
