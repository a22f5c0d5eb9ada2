package aof

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// taskStatuses are the statuses of the guide's lifecycle (aof-1 §Overview).
var taskStatuses = []string{"backlog", "ready", "in-progress", "review", "done", "blocked"}

func isTaskStatus(s string) bool {
	for _, t := range taskStatuses {
		if t == s {
			return true
		}
	}
	return false
}

var (
	// StatusContent: at least one of status, progress, blockers, notes.
	StatusContent = ruleDocs.Rule(lint.Rule{ID: "AOF-STATUS-001", Protocol: "aof", Kinds: []string{KindStatusUpdate}, Severity: lint.Error, Run: checkStatusContent})
	// StatusValue: status is a task status.
	StatusValue = ruleDocs.Rule(lint.Rule{ID: "AOF-STATUS-002", Protocol: "aof", Kinds: []string{KindStatusUpdate}, Severity: lint.Error, Run: checkStatusValue})
)

var statusRules = []*lint.Rule{StatusContent, StatusValue}

// upstreamStatuses are the upstream implementation's TaskStatus values the guide
// does not define; each is treated alike (a warning naming the dialect).
var upstreamStatuses = []string{"cancelled", "deadletter"}

func isUpstreamStatus(s string) bool { return s == "cancelled" || s == "deadletter" }

func checkStatusContent(p *lint.Pass) {
	pl := p.Member("/payload")
	if pl == nil || pl.Kind != jsonread.Object {
		return
	}
	for _, k := range []string{"status", "progress", "blockers", "notes"} {
		n := pl.Get(k)
		if n != nil && n.Kind != jsonread.Null {
			return
		}
	}
	p.Reportf("/payload", "status.update carries none of status, progress, blockers or notes: say something, such as \"progress\": \"Executed 50/100 test cases\" (none is provided; the upstream router rejects such an update)")
}

func checkStatusValue(p *lint.Pass) {
	n := p.Member("/payload/status")
	if !n.IsString() || isTaskStatus(n.Str) {
		return
	}
	p.Claim("/payload/status")
	if isUpstreamStatus(n.Str) {
		p.ReportSevf(lint.Warning, "/payload/status", "status %q is a task status of the upstream implementation only; the guide's lifecycle has %s", n.Str, quoteList(taskStatuses))
		return
	}
	norm := strings.NewReplacer("_", "-", " ", "-").Replace(strings.ToLower(strings.TrimSpace(n.Str)))
	if norm == "inprogress" {
		norm = "in-progress"
	}
	if isTaskStatus(norm) {
		p.Reportf("/payload/status", "status %q is not a task status: write %q (one of %s)", n.Str, norm, quoteList(taskStatuses))
		return
	}
	p.Reportf("/payload/status", "status %q is not a task status: use one of %s", n.Str, quoteList(taskStatuses))
}
