package isotime

import "time"

// Zone says how a date-time names its offset.
type Zone int

const (
	ZoneNone   Zone = iota // no zone: a local time, read as UTC
	ZoneUTC                // "Z" or "z"
	ZoneOffset             // "+02:00", "-0530", "+01"
)

// Dialect is what one protocol calls a timestamp: the ISO 8601 extended
// date-time of its Form (YYYY-MM-DD<sep>hh:mm[:ss[(.|,)f…]][Z|z|±hh[[:]mm]]),
// with these ranges, shared by every dialect:
//
//   - the date exists (proleptic Gregorian; years 0000-9999, month 01-12, the
//     month's days);
//   - hour 00-23, minute and second 00-59: no leap second (23:59:60 is refused,
//     as time.Parse, JavaScript's Date and Zod do), no second 60 anywhere else;
//   - an offset's hour 00-23 and minute 00-59;
//   - a fraction of at least one digit (MaxFrac 0: any number; the instant keeps
//     nine, as time.Parse does).
//
// EndOfDay adds ISO 8601's 24:00, 24:00:00 and 24:00:00.0…, the end of the day
// (the next day's 00:00), which ECMAScript's Date reads too; any other hour 24
// is refused.
//
// Every protocol's rules and its conformance checks read its timestamps through
// its one Dialect (lint/spec/<protocol>.ParseTime).
type Dialect struct {
	Form
	EndOfDay bool
}

// Parse reads s; ok is false when s is not a date-time of the dialect. A time
// without a zone is read as UTC (zone ZoneNone); one with an offset is in a
// fixed zone of that offset.
func (d Dialect) Parse(s string) (t time.Time, zone Zone, ok bool) {
	if in('T', d.Seps) {
		// YYYY-MM-DDThh:mm:ss[.f{1,9}]Z, the form nearly every message writes.
		if t, ok := ParseUTC(s); ok {
			return t, ZoneUTC, true
		}
	}
	m, ok := d.Match(s)
	if !ok {
		return time.Time{}, 0, false
	}
	year, month, day, hour, minute, sec := m.Fields()
	nsec := m.Nsec()
	if hour == 24 && d.EndOfDay && minute == 0 && sec == 0 && zeros(m[7]) {
		if !ValidDate(year, month, day, 0, 0, 0) {
			return time.Time{}, 0, false
		}
		hour, day = 0, day+1 // UTC and time.Date carry the day into the next month
	} else if !ValidDate(year, month, day, hour, minute, sec) {
		return time.Time{}, 0, false
	}
	switch z := m[8]; {
	case z == "":
		zone = ZoneNone
	case z == "Z" || z == "z":
		zone = ZoneUTC
	default:
		zone = ZoneOffset
		if num(z[1:3]) > 23 || len(z) > 3 && num(z[len(z)-2:]) > 59 {
			return time.Time{}, 0, false
		}
		return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.FixedZone("", m.Offset())), zone, true
	}
	return UTC(year, month, day, hour, minute, sec, nsec), zone, true
}

// zeros reports whether s is all '0' ("" included).
func zeros(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}
