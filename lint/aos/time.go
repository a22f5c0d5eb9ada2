package aos

import (
	"github.com/aopkit/aopkit/lint/internal/isotime"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// TimeISO: timestamps are ISO 8601.
var TimeISO = &lint.Rule{
	ID: "AOS-TIME-001", Title: "timestamp must be ISO 8601", Protocol: ID, Severity: lint.Error,
	Spec: "aos-0.1.0 §3.8 StepContext; §4.9.1 ping params; §5.3.1 PingRequestResult",
	Doc: "StepContext.timestamp, the ping request's params.timestamp and the ping result's timestamp are \"string (ISO 8601)\", UTC recommended. " +
		"aoplint accepts the extended date-time form YYYY-MM-DDThh:mm[:ss[.fff]] with an optional Z or ±hh:mm offset (a space for T is tolerated), " +
		"and checks that the date and time exist. Epoch numbers and other date formats are errors.",
	Bad:  `"timestamp": "24/01/2025 15:30"`,
	Good: `"timestamp": "2025-01-24T15:30:45.123Z"`,
	Run:  checkTimes,
}

var isoForm = isotime.Form{Seps: "T "}

// isoProblem says why s is no ISO 8601 date-time, or "".
func isoProblem(s string) string {
	m, ok := isoForm.Match(s)
	if !ok {
		return "is not an ISO 8601 date-time"
	}
	sec := m[6]
	if sec == "" {
		sec = "00"
	}
	if sec == "60" {
		sec = "59" // leap second
	}
	if _, err := time.Parse("2006-01-02T15:04:05", m[1]+"-"+m[2]+"-"+m[3]+"T"+m[4]+":"+m[5]+":"+sec); err != nil {
		return "is not a real date and time"
	}
	return ""
}

func checkTimes(p *lint.Pass) {
	root := p.Msg.Root
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
	check("/params/context/timestamp", root.Path("params", "context", "timestamp"))
	if p.Msg.Kind == "ping" {
		check("/params/timestamp", root.Path("params", "timestamp"))
	}
	if p.Msg.Kind == KindPingResponse {
		check("/result/timestamp", root.Path("result", "timestamp"))
	}
}
