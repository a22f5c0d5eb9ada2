package orchmsg

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/numlit"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// PayloadProgress: progress is a fraction.
var PayloadProgress = ruleDocs.Rule(lint.Rule{ID: "ORCH-PAYLOAD-001", Protocol: ID, Severity: lint.Error, Kinds: []string{"event:progress"}, Run: checkProgress})

// PayloadPriority: priorities are small integers.
var PayloadPriority = ruleDocs.Rule(lint.Rule{
	ID: "ORCH-PAYLOAD-002", Protocol: ID, Severity: lint.Error, Kinds: []string{"request:submit-task", "response:success"},
	Run: checkPriority,
})

// PayloadEnum: roles, task statuses and log levels.
var PayloadEnum = ruleDocs.Rule(lint.Rule{ID: "ORCH-PAYLOAD-003", Protocol: ID, Severity: lint.Error, Run: checkEnums})

// PayloadMillis: durations are milliseconds.
var PayloadMillis = ruleDocs.Rule(lint.Rule{
	ID: "ORCH-PAYLOAD-004", Protocol: ID, Severity: lint.Warning, Kinds: []string{"notify:shutdown", "request:ask-user"},
	Run: checkMillis,
})

func init() { lint.Register(PayloadProgress, PayloadPriority, PayloadEnum, PayloadMillis) }

func checkProgress(p *lint.Pass) {
	n := p.Msg.Root.Path("payload", "progress")
	// Exactly (numlit): 1.0000000000000001 is 1 as a float64, and 1e999999 no
	// float64 at all.
	if in, ok := within(n, "0", "1"); !ok || in {
		return
	}
	f, _ := n.Float() // for the hint (±Inf past float64's range: none)
	hint := ""
	if f > 1 && f <= 100 {
		hint = fmt.Sprintf(", such as %g for %g%%", f/100, f)
	}
	p.Reportf("/payload/progress", "progress %s is outside 0..1: it is a fraction of the task done, from 0 to 1%s", n.Str, hint)
	p.Claim("/payload/progress")
}

func checkPriority(p *lint.Pass) {
	root := p.Msg.Root
	if p.Msg.Kind == "request:submit-task" {
		checkPriorityAt(p, root.Path("payload", "priority"), -1)
		return
	}
	checkPriorityAt(p, root.Path("payload", "task", "priority"), -1)
	for i, it := range items(root.Path("payload", "tasks")) {
		checkPriorityAt(p, it.Get("priority"), i)
	}
}

// checkPriorityAt judges the priority n: /payload/tasks/i/priority, or for i
// < 0 the message's own (its pointer is spelled only for a finding).
func checkPriorityAt(p *lint.Pass, n *jsonread.Node, i int) {
	if n == nil || n.Kind == jsonread.Null {
		return
	}
	// Exactly (numlit): 5.0000000000000001 is 5 as a float64, and 1e999999
	// is an integer but no float64.
	isInt := n.Kind == jsonread.Number && numlit.IsInteger(n.Str)
	if in, _ := within(n, "1", "5"); in && isInt {
		return
	}
	ptr := "/payload/task/priority"
	switch {
	case i >= 0:
		ptr = fmt.Sprintf("/payload/tasks/%d/priority", i)
	case p.Msg.Kind == "request:submit-task":
		ptr = "/payload/priority"
	}
	switch {
	case n.Kind == jsonread.String:
		p.Reportf(ptr, "priority %s must be an integer from 1 (highest) to 5, such as 2", quote(n.Str))
	case !isInt:
		p.Reportf(ptr, "priority %s must be an integer from 1 to 5, such as 2", n.Str)
	default:
		p.ReportSevf(lint.Warning, ptr, "priority %s is outside 1..5, the range the orchestrator ranks", n.Str)
	}
	p.Claim(ptr)
}

var (
	roles        = spec.Roles
	taskStatuses = spec.TaskStatuses
	logLevels    = spec.LogLevels
)

// enumAt is one enumerated member: its pointer (a format taking the array index
// for members of array items), its name in a diagnostic and its values.
type enumAt struct {
	ptr, what string
	allowed   []string
	soft      bool // a warning: the list is the query filter's, a task may know more states (cancelled)
}

var (
	enumRole         = enumAt{"/payload/role", "role", roles, false}
	enumStatus       = enumAt{"/payload/status", "task status", taskStatuses, false}
	enumRequiredRole = enumAt{"/payload/requiredRole", "requiredRole", roles, false}
	enumLevel        = enumAt{"/payload/level", "log level", logLevels, false}
	enumTaskStatus   = enumAt{"/payload/task/status", "task status", taskStatuses, true}
	enumTaskRole     = enumAt{"/payload/task/requiredRole", "requiredRole", roles, false}
	enumAgentRole    = enumAt{"/payload/agents/%d/role", "agent role", roles, false}
	enumTasksStatus  = enumAt{"/payload/tasks/%d/status", "task status", taskStatuses, true}
	enumTasksRole    = enumAt{"/payload/tasks/%d/requiredRole", "requiredRole", roles, false}
)

var enumHints = map[string]string{"warning": "warn", "debug": "info", "fatal": "error", "err": "error", "done": "completed",
	"complete": "completed", "in-progress": "running", "in_progress": "running", "pending": "queued", "executor": "worker",
	"review": "reviewer", "planning": "planner"}

// checkEnums checks the enumerated members of m's kind, addressing the nodes
// directly (one walk from the payload, no pointer made unless a value is wrong).
func checkEnums(p *lint.Pass) {
	m := p.Msg
	if m.Root == nil {
		return
	}
	pl := m.Root.Get("payload")
	switch m.Kind {
	case "request:query-agents":
		checkEnum(p, pl.Get("role"), &enumRole, -1)
	case "request:query-tasks":
		checkEnum(p, pl.Get("status"), &enumStatus, -1)
		checkEnum(p, pl.Get("requiredRole"), &enumRequiredRole, -1)
	case "request:submit-task":
		checkEnum(p, pl.Get("requiredRole"), &enumRequiredRole, -1)
	case "event:log":
		checkEnum(p, pl.Get("level"), &enumLevel, -1)
	case "response:success":
		task := pl.Get("task")
		checkEnum(p, task.Get("status"), &enumTaskStatus, -1)
		checkEnum(p, task.Get("requiredRole"), &enumTaskRole, -1)
		for i, a := range items(pl.Get("agents")) {
			checkEnum(p, a.Get("role"), &enumAgentRole, i)
		}
		for i, t := range items(pl.Get("tasks")) {
			checkEnum(p, t.Get("status"), &enumTasksStatus, i)
			checkEnum(p, t.Get("requiredRole"), &enumTasksRole, i)
		}
	}
}

// checkEnum checks the value n of e (at index i of its array when i >= 0).
func checkEnum(p *lint.Pass, n *jsonread.Node, e *enumAt, i int) {
	if n == nil || !n.IsString() {
		return // absent, or a type error the schema reports
	}
	for _, a := range e.allowed {
		if n.Str == a {
			return
		}
	}
	ptr := e.ptr
	if i >= 0 {
		ptr = fmt.Sprintf(e.ptr, i)
	}
	hint := ""
	low := strings.ToLower(n.Str)
	for _, a := range e.allowed {
		if low == a {
			hint = fmt.Sprintf(" (write it %q, in lower case)", a)
		}
	}
	if h, found := enumHints[low]; found && hint == "" {
		hint = fmt.Sprintf(" (did you mean %q?)", h)
	}
	sev := p.Rule.Severity
	if e.soft {
		sev = lint.Warning
	}
	p.ReportSevf(sev, ptr, "%s %s is not one of %s%s", e.what, quote(n.Str), strings.Join(e.allowed, "|"), hint)
	p.Claim(ptr)
}

func checkMillis(p *lint.Pass) {
	ptr := "/payload/gracePeriod"
	if p.Msg.Kind == "request:ask-user" {
		ptr = "/payload/timeout"
	}
	n := p.Member(ptr) // member names only: a Get each
	if n == nil || n.Kind != jsonread.Number {
		return
	}
	sign, ok := numlit.Cmp(n.Str, "0") // exactly: -1e999999 is no float64
	under, _ := numlit.Cmp(n.Str, "1000")
	f, _ := n.Float() // for the hint
	switch {
	case !ok:
	case sign < 0:
		p.ReportSevf(lint.Error, ptr, "%s %s is negative: it is a duration in milliseconds", ptr[len("/payload/"):], n.Str)
		p.Claim(ptr)
	case sign > 0 && under < 0:
		p.Reportf(ptr, "%s %s is in milliseconds, so this is under a second; for %s seconds write %g", ptr[len("/payload/"):], n.Str, n.Str, f*1000)
	}
}

// items returns the elements of an array node (nil for anything else).
func items(n *jsonread.Node) []*jsonread.Node {
	if n == nil || n.Kind != jsonread.Array {
		return nil
	}
	return n.Items
}

// within reports whether the number n lies in lo..hi, compared exactly
// (numlit.Cmp); ok is false when n is no number (or one numlit does not read).
func within(n *jsonread.Node, lo, hi string) (in, ok bool) {
	if n == nil || n.Kind != jsonread.Number {
		return false, false
	}
	a, ok1 := numlit.Cmp(n.Str, lo)
	b, ok2 := numlit.Cmp(n.Str, hi)
	return a >= 0 && b <= 0, ok1 && ok2
}
