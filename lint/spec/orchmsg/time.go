package orchmsg

import (
	"time"

	"github.com/aopkit/aopkit/lint/internal/isotime"
)

// timeDialect is the BaseMessage timestamp, "string // ISO 8601", which the
// reference writes with JavaScript's new Date().toISOString(): seconds,
// fraction and zone optional, T and Z in either case, and ISO 8601's 24:00:00
// for the end of a day, which ECMAScript's Date reads too (no other hour 24).
var timeDialect = isotime.Dialect{Form: isotime.Form{Seps: "Tt"}, EndOfDay: true}

// ParseTime reads an orchmsg timestamp; zone says whether and how it names its
// offset (isotime.ZoneNone: a local time, read as UTC). aoplint's ORCH rules, the
// reference engine and the conformance checks all read timestamps here.
func ParseTime(s string) (t time.Time, zone isotime.Zone, ok bool) { return timeDialect.Parse(s) }
