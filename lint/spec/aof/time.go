package aof

import (
	"time"

	"github.com/aopkit/aopkit/lint/internal/isotime"
)

// timeDialect is the guide's "ISO 8601 datetime" (sentAt, dueBy and the run
// artifacts' times): seconds, fraction and zone optional, T and Z in either
// case, no hour 24. What the upstream router refuses beyond that (an offset, no
// zone, a lower-case z) is AOF-TIME-002's, not a matter of format.
var timeDialect = isotime.Dialect{Form: isotime.Form{Seps: "Tt"}}

// ParseTime reads an AOF/1 date-time; zone says whether and how it names its
// offset (isotime.ZoneNone: a local time, read as UTC). aoplint's AOF-TIME
// rules, the reference engine and the conformance checks all read timestamps
// here.
func ParseTime(s string) (t time.Time, zone isotime.Zone, ok bool) { return timeDialect.Parse(s) }
