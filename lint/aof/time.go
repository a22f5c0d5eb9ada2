package aof

import (
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

var (
	// TimeFormat: timestamps are ISO 8601 date-times.
	TimeFormat = &lint.Rule{
		ID: "AOF-TIME-001", Title: "timestamps are ISO 8601 date-times", Protocol: "aof", Severity: lint.Error,
		Spec: "aof-1 §Envelope Fields; §Handoff Request Payload; §Resume Protocol Artifacts",
		Doc: "sentAt (every envelope), dueBy (handoff.request and inputs/handoff.json), startedAt (run.json), lastHeartbeat and expiresAt " +
			"(run_heartbeat.json) and completedAt (run_result.json) are ISO 8601 date-times, as in the guide: 2026-02-09T21:00:00.000Z. " +
			"A date alone, a locale format or free text (\"soon\") is rejected by the router's schema.",
		Bad:  `"dueBy": "soon"`,
		Good: `"dueBy": "2026-02-10T12:00:00.000Z"`,
		Run:  checkTimes,
	}
	// TimeZone: timestamps in UTC with Z (upstream dialect).
	TimeZone = &lint.Rule{
		ID: "AOF-TIME-002", Title: "timestamps should be UTC with Z", Protocol: "aof", Severity: lint.Warning,
		Spec: "aof-1 §Envelope Fields (upstream: Zod .datetime())",
		Doc: "The guide asks for an ISO 8601 date-time and writes every example in UTC with Z. An offset such as +02:00 is ISO 8601, " +
			"but the upstream implementation validates with Zod's .datetime(), which accepts only UTC with Z and rejects the envelope " +
			"(invalid_envelope); a time without any zone is ambiguous. Write UTC with Z. A lowercase z is valid ISO 8601 but refused upstream " +
			"too: an info naming that dialect.",
		Bad:  `"sentAt": "2026-02-09T23:00:00+02:00"`,
		Good: `"sentAt": "2026-02-09T21:00:00.000Z"`,
		Run:  checkZones,
	}
)

var timeRules = []*lint.Rule{TimeFormat, TimeZone}

// timeFields are the pointers of date-times by kind.
func timeFields(kind string) []string {
	switch kind {
	case KindHandoffRequest:
		return []string{"/sentAt", "/payload/dueBy"}
	case KindRun:
		return []string{"/startedAt"}
	case KindHeartbeat:
		return []string{"/lastHeartbeat", "/expiresAt"}
	case KindRunResult:
		return []string{"/completedAt"}
	case KindHandoffInput:
		return []string{"/dueBy"}
	}
	return []string{"/sentAt"}
}

func fieldName(ptr string) string { return ptr[strings.LastIndex(ptr, "/")+1:] }

func checkTimes(p *lint.Pass) {
	for _, ptr := range timeFields(p.Msg.Kind) {
		n := p.Member(ptr)
		if !n.IsString() {
			continue // schema: required / type
		}
		if _, _, ok := spec.ParseTime(n.Str); ok {
			continue
		}
		name := fieldName(ptr)
		if _, err := time.Parse("2006-01-02", n.Str); err == nil {
			p.Reportf(ptr, "%s %q is a date without a time: %s is an ISO 8601 date-time, such as %q", name, n.Str, name, n.Str+"T12:00:00.000Z")
		} else {
			p.Reportf(ptr, "%s %q is not an ISO 8601 date-time: write it like \"2026-02-09T21:00:00.000Z\"", name, n.Str)
		}
		p.Claim(ptr)
	}
}

func checkZones(p *lint.Pass) {
	for _, ptr := range timeFields(p.Msg.Kind) {
		n := p.Member(ptr)
		if !n.IsString() {
			continue
		}
		t, zone, ok := spec.ParseTime(n.Str)
		if !ok {
			continue
		}
		name := fieldName(ptr)
		switch zone {
		case isotime.ZoneOffset:
			p.Reportf(ptr, "%s %q has a UTC offset: ISO 8601 allows it, but the upstream implementation accepts only UTC with Z (Zod .datetime()) "+
				"and rejects the envelope as invalid_envelope; write %q", name, n.Str, spec.FormatTime(t))
		case isotime.ZoneUTC:
			if strings.HasSuffix(n.Str, "z") {
				p.ReportSevf(lint.Info, ptr, "%s %q ends with a lowercase z: valid ISO 8601 (RFC 3339 allows it), but the upstream implementation "+
					"(Zod .datetime()) accepts only an uppercase Z and rejects the envelope as invalid_envelope; write %q", name, n.Str, n.Str[:len(n.Str)-1]+"Z")
			}
		case isotime.ZoneNone:
			p.Reportf(ptr, "%s %q has no time zone, so readers cannot tell the instant (and the upstream implementation rejects it); write UTC with Z, such as %q",
				name, n.Str, spec.FormatTime(t))
		}
	}
}
