package aos

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// TimeISO: timestamps are ISO 8601.
var TimeISO = ruleDocs.Rule(lint.Rule{ID: "AOS-TIME-001", Protocol: ID, Severity: lint.Error, Run: checkTimes})

// isoProblem says why s is no ISO 8601 date-time, or "" (lint/spec/aos).
func isoProblem(s string) string { return spec.TimestampProblem(s) }

func checkTimes(p *lint.Pass) {
	v := viewOf(p.Msg)
	check := func(ptr string, n *jsonread.Node) {
		if n == nil {
			return
		}
		if n.Kind != jsonread.String {
			p.Claim(ptr)
			p.Reportf(ptr, "timestamp is %s; it must be an ISO 8601 string such as \"2025-01-24T15:30:45.123Z\"", kindOf(n))
			return
		}
		if why := isoProblem(n.Str); why != "" {
			p.Reportf(ptr, "timestamp %q %s; write it like \"2025-01-24T15:30:45.123Z\" (UTC recommended)", n.Str, why)
		}
	}
	check("/params/context/timestamp", v.params.Path("context", "timestamp"))
	if p.Msg.Kind == "ping" {
		check("/params/timestamp", v.params.Get("timestamp"))
	}
	if p.Msg.Kind == KindPingResponse {
		check("/result/timestamp", v.result.Get("timestamp"))
	}
}
