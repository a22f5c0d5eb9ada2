package aop2

import (
	"time"

	"github.com/aopkit/aopkit/lint/internal/isotime"
)

// timeDialect is what the contract calls a date-time (session.created_at,
// timing.*, progress_log.last_progress_event_at, every EVENT's timestamp):
// ISO 8601, written in every example as "2026-02-26T12:37:01Z". Seconds,
// fraction and zone are optional; T and Z may be lower case (RFC 3339 §5.6; the
// upstream Pydantic models read them); no hour 24 (Pydantic refuses it).
var timeDialect = isotime.Dialect{Form: isotime.Form{Seps: "Tt"}}

// ParseTime reads an aop2 date-time; zone says whether and how it names its
// offset (isotime.ZoneNone: a local time, read as UTC). aoplint's AOP2-TIME
// rules, the reference engine and the conformance checks all read timestamps
// here.
func ParseTime(s string) (t time.Time, zone isotime.Zone, ok bool) { return timeDialect.Parse(s) }
