package aopoutput

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// MetricsPairs: METRICS is key: value pairs.
var MetricsPairs = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-METRICS-001", Protocol: ID, Kinds: reportKinds, Severity: lint.Warning, Run: checkMetrics})

func init() { lint.Register(MetricsPairs) }

func checkMetrics(p *lint.Pass) {
	m := parsed(p).First("METRICS")
	if m == nil {
		return
	}
	if m.Value == "" {
		reportAt(p, lint.Warning, m.Off, "/metrics", "[AOP:METRICS] is empty: give key: value pairs (files_scanned: 234, duration: 12s) or leave the optional marker out")
		return
	}
	// The first part the spec's parser does not read whole as a key: value
	// pair (the parts walked in place).
	for rest, more := m.Value, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		k, v, cut := spec.MetricPart(part)
		switch {
		case k == "" || v == "":
			reportAt(p, lint.Warning, m.ValOff, "/metrics", "[AOP:METRICS] part %s is not a key: value pair, so parsers drop it: write metrics as \"key: value\" separated by commas, such as \"files_scanned: 234, duration: 12s\"", quote(spec.TrimJS(part)))
			return
		case cut:
			reportAt(p, lint.Warning, m.ValOff, "/metrics", "[AOP:METRICS] part %s has a second ':', so parsers read %s as its value and drop the rest: write values without ':', such as \"duration: 12s\"", quote(spec.TrimJS(part)), quote(v))
			return
		}
	}
}
