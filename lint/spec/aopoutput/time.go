package aopoutput

import (
	"time"

	"github.com/aopkit/aopkit/lint/internal/isotime"
)

// timeDialect is the "{ISO timestamp}" of [AOP:START] and [AOP:END] (and the
// details file's timestamp): seconds, fraction and zone optional, T and Z in
// either case, no hour 24. The value is the marker's, trimmed as the spec's
// parser trims it.
var timeDialect = isotime.Dialect{Form: isotime.Form{Seps: "Tt"}}

// ParseTime reads an aop-output timestamp; zone says whether and how it names
// its offset (isotime.ZoneNone: a local time, read as UTC). aoplint's AOPOUT-TIME
// rules and the conformance checks both read timestamps here.
func ParseTime(s string) (t time.Time, zone isotime.Zone, ok bool) { return timeDialect.Parse(s) }
