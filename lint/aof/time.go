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
	TimeFormat = ruleDocs.Rule(lint.Rule{ID: "AOF-TIME-001", Protocol: "aof", Severity: lint.Error, Run: checkTimes})
	// TimeZone: timestamps in UTC with Z (upstream dialect).
	TimeZone = ruleDocs.Rule(lint.Rule{ID: "AOF-TIME-002", Protocol: "aof", Severity: lint.Warning, Run: checkZones})
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
