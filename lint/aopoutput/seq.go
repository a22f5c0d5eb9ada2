package aopoutput

import (
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// SeqTaskLimit: in a transcript, the report keeps the limit of the task type it was given.
var SeqTaskLimit = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-SEQ-001", Protocol: ID, Severity: lint.Error, NewChecker: func() lint.Checker { return &taskLimitChecker{} }})

func init() { lint.Register(SeqTaskLimit) }

type taskLimitChecker struct {
	row   spec.TaskType // the task type's row (the package's strings, none of the line's)
	given bool          // a task line gave one
	w     lint.Related
}

func (c *taskLimitChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if m == nil || (m.Protocol != ID && m.Kind != "control") {
		return
	}
	switch m.Kind {
	case KindTask, "control": // the task line as a message, or as a transcript control record
		if t := m.Root.Get("task_type"); t.IsString() && m.Root.Get("task").IsString() {
			if row, ok := TaskTypes[t.Str]; ok {
				c.row, c.given, c.w = row, true, lint.Witness(m, "/task_type", "task_type "+quote(t.Str)+" of the task line")
			}
		}
	case KindReport:
		if !c.given || (m.Opts != nil && m.Opts.TaskType != "") {
			return
		}
		r := parsed(p)
		sm := r.First("SUMMARY")
		if sm == nil {
			return
		}
		_, text := r.Summary()
		row := c.row
		if len(text) <= row.Limit {
			return // no more runes than bytes: within the limit, uncounted
		}
		n := utf8.RuneCountInString(text)
		if n <= row.Limit || n > HardLimit {
			return
		}
		line, col := m.Pos.Position(sm.Off)
		p.ReportAtf(lint.Error, lint.Related{Path: m.Path, Line: line, Column: col, Pointer: "/summary"}, []lint.Related{c.w},
			"the summary is %d characters, over the %d-character limit for %s tasks, the task type the agent was given", n, row.Limit, row.Name)
	}
}

func (c *taskLimitChecker) Finish(*lint.Pass) {}
