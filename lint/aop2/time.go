package aop2

import (
	"math"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// Timestamp: date-time members are ISO 8601.
var Timestamp = ruleDocs.Rule(lint.Rule{ID: "AOP2-TIME-001", Protocol: ID, Severity: lint.Error, Run: checkTimestamps})

// TimingOrder: a RESPONSE's timing is consistent.
var TimingOrder = ruleDocs.Rule(lint.Rule{ID: "AOP2-TIME-002", Protocol: ID, Kinds: kindResponse, Severity: lint.Error, Run: checkTimingOrder})

func init() { lint.Register(Timestamp, TimingOrder) }

// timestampPointers are the date-time members of each kind.
func timestampPointers(kind string) []string {
	switch kind {
	case KindTask:
		return []string{"/session/created_at"}
	case KindResponse:
		return []string{"/timing/started_at", "/timing/completed_at", "/progress_log/last_progress_event_at"}
	case "":
		return nil
	}
	return []string{"/timestamp"} // every EVENT
}

func checkTimestamps(p *lint.Pass) {
	for _, at := range timestampPointers(p.Msg.Kind) {
		n := p.Member(at) // member names only: a Get each
		if n == nil || !n.IsString() {
			continue // absence and type are the schema's business
		}
		_, zone, ok := aop2spec.ParseTime(n.Str)
		switch {
		case !ok:
			p.Reportf(at, "%s %s is not an ISO 8601 date-time; write it like \"2026-02-26T12:37:01Z\"", dotted(at), describe(n))
		case zone == isotime.ZoneNone:
			p.ReportSevf(lint.Warning, at, "%s %s has no time zone, so readers may take it for different instants; add Z for UTC, such as %q", dotted(at), describe(n), n.Str+"Z")
		}
	}
}

func checkTimingOrder(p *lint.Pass) {
	tm := p.Msg.Root.Get("timing")
	start, _, ok1 := aop2spec.ParseTime(tm.Get("started_at").String())
	end, _, ok2 := aop2spec.ParseTime(tm.Get("completed_at").String())
	if !ok1 || !ok2 {
		return
	}
	if end.Before(start) {
		p.Reportf("/timing/completed_at", "timing.completed_at %s is before timing.started_at %s: a task cannot end before it starts", tm.Get("completed_at").Str, tm.Get("started_at").Str)
		return
	}
	if d, ok := tm.Get("duration_seconds").Float(); ok {
		if diff := end.Sub(start).Seconds(); math.Abs(diff-d) > 1 {
			p.ReportSevf(lint.Warning, "/timing/duration_seconds", "timing.duration_seconds %s disagrees with started_at..completed_at, which is %.0f s apart", tm.Get("duration_seconds").Str, diff)
		}
	}
}
