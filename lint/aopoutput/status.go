package aopoutput

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// Statuses are the values of [AOP:STATUS].
var Statuses = []string{"success", "failure", "partial"}

// StatusValue: success | failure | partial.
var StatusValue = ruleDocs.Rule(lint.Rule{
	ID: "AOPOUT-STATUS-001", Protocol: ID, Kinds: reportKinds, Severity: lint.Error,
	Spec: specFormat + " ([AOP:STATUS] {success | failure | partial}); §Validation Checklist",
	Run:  checkStatus,
})

func init() { lint.Register(StatusValue) }

func checkStatus(p *lint.Pass) {
	r := parsed(p)
	m := r.First("STATUS")
	if m == nil {
		return
	}
	w := firstWord(m.Value)
	low := strings.ToLower(w)
	valid := low == "success" || low == "failure" || low == "partial"
	switch {
	case m.Value == "":
		reportAt(p, lint.Error, m.Off, "/status", "[AOP:STATUS] is empty: write success, failure or partial")
	case w == "BLOCKED" || w == "FAILED":
		to := "failure"
		if w == "BLOCKED" {
			to = "failure (or partial, if some work was done)"
		}
		reportAt(p, lint.Error, m.ValOff, "/status", "status %s is the %s; AOP 1.0.0 statuses are success, failure, partial: write %s", quote(w), DialectFiles, to)
	case strings.Contains(m.Value, "|"):
		reportAt(p, lint.Error, m.ValOff, "/status", "status %s is the template's list: write one of success, failure, partial", quote(m.Value))
	case !valid:
		hint := ""
		switch low {
		case "done", "ok", "completed", "complete", "succeeded", "pass", "passed":
			hint = " (did you mean success?)"
		case "failed", "error", "fail", "blocked":
			hint = " (did you mean failure?)"
		case "incomplete", "partially":
			hint = " (did you mean partial?)"
		}
		reportAt(p, lint.Error, m.ValOff, "/status", "status %s is not one of success, failure, partial%s", quote(m.Value), hint)
	case w != low:
		d := "in upper case"
		switch memoOf(p).dialectOf() {
		case DialectFiles:
			d = "the " + DialectFiles + "'s spelling"
		case DialectUpperStatus:
			d = "the " + DialectUpperStatus
		}
		reportAt(p, lint.Warning, m.ValOff, "/status", "status %s is %s: AOP 1.0.0 writes %s (the spec's parser lowercases it, other readers may not)", quote(w), d, low)
	case strings.TrimSpace(m.Value[len(w):]) != "":
		reportAt(p, lint.Warning, m.ValOff, "/status", "[AOP:STATUS] %s has text after the status: parsers read only %s; put explanations in the summary", quote(m.Value), quote(w))
	default:
		return
	}
	p.Claim("/status")
}
