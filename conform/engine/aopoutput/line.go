package aopoutput

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/aopkit/aopkit/conform/harness"
)

// Line is what a parent under test tells of each report it took: one JSON object
// on its stdout per agent run (docs/bindings.md "Orchestrators", aop-output). It
// is how `aopconform run --side orchestrator --protocol aop-output` sees what the
// parent took into its context, and what `aopconform engine --protocol
// aop-output` prints.
type Line struct {
	// Report classifies the agent's output: complete, incomplete or missing.
	Report string `json:"report"`
	// Status is success, failure or partial (a complete report's), else unknown.
	Status string `json:"status"`
	// Summary is the summary as kept (whole, or cut at the task type's limit);
	// null when the output has no [AOP:SUMMARY].
	Summary *string `json:"summary"`
	// DetailsFile is the path after [AOP:DETAILS_FILE] as written; null when
	// there is none.
	DetailsFile *string `json:"details_file"`
	// Details is what the parent read of the details file: the JSON value, or a
	// string when it is not JSON; null when it read nothing.
	Details json.RawMessage `json:"details"`
	// Metrics are the key: value pairs of [AOP:METRICS] as the spec's
	// parseAOPOutput reads them; absent when the report has none. A parent
	// that keeps no metrics leaves it out.
	Metrics map[string]string `json:"metrics,omitempty"`
}

// NewLine is the line of a report the engine took (d: nil when the report names
// no details file).
func NewLine(t Taken, d *Details) Line {
	l := Line{Report: t.Report, Status: t.Status, Metrics: t.Metrics}
	if t.HasSummary {
		s := t.Summary
		l.Summary = &s
	}
	if d != nil {
		n := d.Named
		l.DetailsFile = &n
		if d.Content != nil {
			if c, err := harness.Compact(d.Content); err == nil {
				l.Details = c
			} else {
				l.Details, _ = json.Marshal(harness.ToValidUTF8(d.Content))
			}
		}
	}
	return l
}

// ParseLine reads one line of a parent under test: a JSON object with at least
// "report" and "status" (an unknown field is allowed and ignored).
func ParseLine(b []byte) (Line, error) {
	var l Line
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return l, fmt.Errorf("not a JSON object: %v", err)
	}
	for _, k := range []string{"report", "status"} {
		if _, ok := raw[k]; !ok {
			return l, fmt.Errorf("no %q", k)
		}
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, err
	}
	if bytes.Equal(bytes.TrimSpace(l.Details), []byte("null")) {
		l.Details = nil
	}
	return l, nil
}
