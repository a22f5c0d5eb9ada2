package aop2

import (
	"math"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// Timestamp: date-time members are ISO 8601.
var Timestamp = &lint.Rule{
	ID: "AOP2-TIME-001", Title: "timestamps are ISO 8601", Protocol: ID, Severity: lint.Error,
	Spec: "aop2 §2.1 (session.created_at); §5 (timing, progress_log); §6-§8 (event timestamp)",
	Doc: "Every date-time of the contract is written as an ISO 8601 date-time, as in all its examples: \"2026-02-26T12:37:01Z\" (session.created_at, timing.started_at and completed_at, progress_log.last_progress_event_at, the timestamp of every EVENT). " +
		"Orchestrators order heartbeats and progress by them. Other formats (\"22/11/2026 10:00\", epoch numbers) are errors; a date-time without a time zone is ambiguous and gets a warning: add Z for UTC.",
	Bad:  `{"message_type": "EVENT", "event": "HEARTBEAT", ..., "timestamp": "22/11/2026 10:00"}`,
	Good: `{"message_type": "EVENT", "event": "HEARTBEAT", ..., "timestamp": "2026-11-22T10:00:00Z"}`,
	Run:  checkTimestamps,
}

// TimingOrder: a RESPONSE's timing is consistent.
var TimingOrder = &lint.Rule{
	ID: "AOP2-TIME-002", Title: "timing is consistent", Protocol: ID, Kinds: kindResponse, Severity: lint.Error,
	Spec: "aop2 §5 Executor Response (timing)",
	Doc:  "A RESPONSE's timing says when the task ran: completed_at cannot be before started_at (an error), and duration_seconds should be the time between them (more than a second off is a warning).",
	Bad:  `"timing": {"started_at": "2026-02-26T12:40:32Z", "completed_at": "2026-02-26T12:35:01Z", "duration_seconds": 331}`,
	Good: `"timing": {"started_at": "2026-02-26T12:35:01Z", "completed_at": "2026-02-26T12:40:32Z", "duration_seconds": 331}`,
	Run:  checkTimingOrder,
}

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
