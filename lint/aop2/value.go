package aop2

import (
	"strconv"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/numlit"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// Percentage: progress percentages are within 0..100.
var Percentage = ruleDocs.Rule(lint.Rule{ID: "AOP2-VALUE-001", Protocol: ID, Severity: lint.Error, Run: checkPercentages})

func init() { lint.Register(Percentage) }

// percentPointer is where a kind carries its progress percentage ("" if none).
func percentPointer(kind string) string {
	switch kind {
	case kindHeartbeat:
		return "/progress_percentage"
	case kindProgress:
		return "/progress/percentage"
	case KindResponse:
		return "/progress_log/progress_percentage"
	}
	return ""
}

func checkPercentages(p *lint.Pass) {
	at := percentPointer(p.Msg.Kind)
	if at == "" {
		return
	}
	n := p.Member(at)
	// Exactly (numlit.Cmp): 100.0000000000000001 is 100 as a float64, and
	// 1e999999 no float64 at all.
	if lo, hi, ok := cmpRange(n, "0", "100"); ok && (lo < 0 || hi > 0) {
		p.Claim(at)
		p.Reportf(at, "%s is %s: a percentage is within 0..100", dotted(at), n.Str)
	}
}

// Sanity: limits and counts the spec gives no range for, with values that cannot
// mean what they say. The spec does not require them, so this is a warning.
var Sanity = ruleDocs.Rule(lint.Rule{ID: "AOP2-VALUE-002", Protocol: ID, Kinds: kindTask, Severity: lint.Warning, Run: checkSanity})

func init() { lint.Register(Sanity) }

// sanityLimits: where each value lives, the least sensible value, and whether the
// least value itself is allowed.
var sanityLimits = []struct {
	parent, key string // the value is the member key of the object at parent
	min         string // a number literal, compared exactly (numlit.Cmp)
	inclusive   bool
	meaning     string
}{
	{"/task", "attempt", "1", true, "attempts are numbered from 1"},
	{"/task/constraints", "max_tokens", "0", true, "a budget cannot be negative"},
	{"/task/constraints", "max_cost_usd", "0", true, "a budget cannot be negative"},
	{"/task/budgets", "max_tokens", "0", true, "a budget cannot be negative"},
	{"/task/budgets", "max_cost_usd", "0", true, "a budget cannot be negative"},
	{"/execution_policy", "timeout_seconds", "0", false, "a task cannot run for zero or less seconds"},
	{"/guard_rails", "timeout_seconds", "0", false, "a task cannot run for zero or less seconds"},
	{"/execution_policy", "max_retries", "0", true, "a retry count cannot be negative"},
	{"/execution_policy/heartbeat", "interval_seconds", "0", false, "a heartbeat every zero or less seconds is no interval"},
	{"/execution_policy/heartbeat", "max_missed_beats", "1", true, "missing fewer than one beat cannot be a failure"},
}

func checkSanity(p *lint.Pass) {
	// Consecutive limits of one object (/task/constraints/...) share the
	// lookup of their parent.
	var parent *jsonread.Node
	parentAt := "\x00" // no pointer
	for _, l := range sanityLimits {
		if l.parent != parentAt {
			parentAt, parent = l.parent, p.Member(l.parent)
		}
		n := parent.Get(l.key)
		c, _, ok := cmpRange(n, l.min, l.min)
		if !ok || c > 0 || (l.inclusive && c == 0) {
			continue
		}
		at := l.parent + "/" + l.key
		p.Reportf(at, "%s is %s: not required by the spec (which gives it no range), but %s", dotted(at), n.Str, l.meaning)
	}
	if b := p.Member("/execution_policy/retry_backoff_seconds"); b != nil {
		for i, it := range b.Items {
			if c, _, ok := cmpRange(it, "0", "0"); ok && c < 0 {
				at := "/execution_policy/retry_backoff_seconds/" + strconv.Itoa(i)
				p.Reportf(at, "%s is %s: not required by the spec (which gives it no range), but a backoff cannot be negative", dotted(at), it.Str)
			}
		}
	}
}

// cmpRange compares the number n with lo and with hi, exactly (numlit.Cmp); ok
// is false when n is no number (or one with an exponent numlit does not read).
func cmpRange(n *jsonread.Node, lo, hi string) (cLo, cHi int, ok bool) {
	if n == nil || n.Kind != jsonread.Number {
		return 0, 0, false
	}
	cLo, ok1 := numlit.Cmp(n.Str, lo)
	cHi, ok2 := numlit.Cmp(n.Str, hi)
	return cLo, cHi, ok1 && ok2
}
