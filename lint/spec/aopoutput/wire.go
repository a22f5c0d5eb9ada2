package aopoutput

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/spec/wire"
)

// TaskLine is the one JSON line a parent sends an aop-output agent on stdin
// (aopkit's binding, docs/bindings.md; schemas/aop-output/task.schema.json): the
// task, and its type, which selects the summary limit of §Summary Length
// Limits by Task Type (SummaryLimit).
type TaskLine struct {
	Task     string `json:"task"`
	TaskType string `json:"task_type"`
}

// DecodeTaskLine reads a task line with lint/spec/wire (keys exactly as
// spelled, as aoplint reads them). The error says why it is no task line: no
// JSON object, or a member of another JSON type than a string (encoding/json's
// refusal, which the parent and the agent keep); the members that are strings
// are read even then.
func DecodeTaskLine(line []byte) (TaskLine, error) {
	var t TaskLine
	root, err := wire.Parse(line)
	if err != nil {
		return t, err
	}
	if bad := wire.Bind(root, &t); len(bad) > 0 {
		return t, fmt.Errorf("%s: not a string", strings.Join(bad, ", "))
	}
	return t, nil
}

// Details is the details file (§Details File Format;
// schemas/aop-output/details.schema.json): JSON that "should include" these
// members (none is required: AOPOUT-FILE-001 warns about missing ones).
// Results and Metadata are free objects (the full results, "any size"); their
// numbers are json.Number. DurationMS is nil when absent (or not a number).
type Details struct {
	AOPVersion string         `json:"aop_version"`
	AgentID    string         `json:"agent_id"`
	Task       string         `json:"task"`
	Timestamp  string         `json:"timestamp"`
	DurationMS *float64       `json:"duration_ms"`
	Results    map[string]any `json:"results"`
	Metadata   map[string]any `json:"metadata"`

	root *jsonread.Node
}

// DetailsMembers are the members the spec's details file includes, in its order.
var DetailsMembers = []string{"aop_version", "agent_id", "task", "timestamp", "duration_ms", "results", "metadata"}

// HasValue reports whether the details file has the member key, not null.
func (d *Details) HasValue(key string) bool {
	n := d.root.Get(key)
	return n != nil && n.Kind != jsonread.Null
}

// DecodeDetails reads a details file with lint/spec/wire: a member of another
// JSON type than the spec's is left zero (the schema rule reports it). The
// error says why the file is no JSON object.
func DecodeDetails(data []byte) (*Details, error) {
	root, err := wire.Parse(data)
	if err != nil {
		return nil, err
	}
	d := &Details{root: root}
	wire.Bind(root, d)
	return d, nil
}
