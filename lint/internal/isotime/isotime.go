// Package isotime matches the ISO 8601 extended date-times the protocols write
// (YYYY-MM-DDThh:mm[:ss[.fff]] with an optional Z or ±hh[[:]mm] offset) with byte
// checks instead of a regular expression: the rules check every timestamp of
// every message, and the regexp cost allocations and most of their time.
package isotime

import "time"

// Form says which separators between date and time a protocol accepts and how
// many fraction digits; Match then answers exactly as the regexp
//
//	^(\d{4})-(\d{2})-(\d{2})[Seps](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,MaxFrac}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$
//
// (MaxFrac 0: \d+) would with FindStringSubmatch.
type Form struct {
	Seps    string // "Tt" or "T "
	MaxFrac int    // 0: any number of fraction digits
}

// Parts are the submatches: [0] the whole string, [1]-[3] year, month, day,
// [4]-[6] hour, minute, second, [7] the fraction, [8] the zone; "" for a part
// that is absent.
type Parts [9]string

// Match matches s (see Form).
func (f Form) Match(s string) (m Parts, ok bool) {
	// YYYY-MM-DD<sep>hh:mm is 16 bytes.
	if len(s) < 16 || !digits(s[0:4]) || s[4] != '-' || !digits(s[5:7]) || s[7] != '-' || !digits(s[8:10]) ||
		!in(s[10], f.Seps) || !digits(s[11:13]) || s[13] != ':' || !digits(s[14:16]) {
		return m, false
	}
	m[0], m[1], m[2], m[3], m[4], m[5] = s, s[0:4], s[5:7], s[8:10], s[11:13], s[14:16]
	rest := s[16:]
	// Each optional part is taken when its first byte is there: no later part
	// starts with ':' or '.'/',' and the end cannot, so skipping it never matches.
	if len(rest) > 0 && rest[0] == ':' {
		if len(rest) < 3 || !digits(rest[1:3]) {
			return Parts{}, false
		}
		m[6], rest = rest[1:3], rest[3:]
		if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
			n := 0
			for n+1 < len(rest) && isDigit(rest[n+1]) {
				n++
			}
			if n == 0 || (f.MaxFrac > 0 && n > f.MaxFrac) {
				return Parts{}, false
			}
			m[7], rest = rest[1:1+n], rest[1+n:]
		}
	}
	switch {
	case rest == "":
	case rest == "Z" || rest == "z":
		m[8] = rest
	case rest[0] == '+' || rest[0] == '-':
		// [+-]hh, [+-]hhmm or [+-]hh:mm
		switch {
		case len(rest) == 3 && digits(rest[1:3]),
			len(rest) == 5 && digits(rest[1:5]),
			len(rest) == 6 && digits(rest[1:3]) && rest[3] == ':' && digits(rest[4:6]):
			m[8] = rest
		default:
			return Parts{}, false
		}
	default:
		return Parts{}, false
	}
	return m, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func in(c byte, set string) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}

// Fields returns the numbers of a match: year, month, day, hour, minute and
// second (0 when absent).
func (m Parts) Fields() (year, month, day, hour, minute, sec int) {
	return num(m[1]), num(m[2]), num(m[3]), num(m[4]), num(m[5]), num(m[6])
}

// Nsec is the fraction [7] in nanoseconds: its first nine digits (0 when
// absent).
func (m Parts) Nsec() int {
	nsec, f := 0, m[7]
	for i := 0; i < 9; i++ {
		nsec *= 10
		if i < len(f) {
			nsec += int(f[i] - '0')
		}
	}
	return nsec
}

// Offset is the zone [8] in seconds east of UTC: ±hh, ±hhmm or ±hh:mm; 0 for
// none, Z or z.
func (m Parts) Offset() int {
	z := m[8]
	if len(z) < 3 {
		return 0
	}
	off := num(z[1:3]) * 3600
	if len(z) > 3 {
		off += num(z[len(z)-2:]) * 60
	}
	if z[0] == '-' {
		return -off
	}
	return off
}

// ValidDate reports whether the date and time exist as time.Parse requires:
// month 1-12, a day of that month, hour 0-23, minute and second 0-59.
func ValidDate(year, month, day, hour, minute, sec int) bool {
	return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour <= 23 && minute <= 59 && sec <= 59
}

// num is the value of a run of ASCII digits ("" is 0).
func num(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// daysIn is the number of days of month in year (proleptic Gregorian, as time).
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ParseUTC parses the form of time most transcripts write,
// YYYY-MM-DDThh:mm:ss[.f{1,9}]Z, exactly as time.Parse(time.RFC3339Nano, s)
// would (the same time.Time, == included), in a fraction of its instructions.
// ok is false for anything else, valid or
// not: the caller then asks time.Parse, which also says what is wrong.
func ParseUTC(s string) (t time.Time, ok bool) {
	// YYYY-MM-DDThh:mm:ssZ is 20 bytes; a fraction adds 2 to 10.
	n := len(s)
	if n < 20 || n > 30 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	y1, ok1 := two(s, 0)
	y2, ok2 := two(s, 2)
	month, ok3 := two(s, 5)
	day, ok4 := two(s, 8)
	hour, ok5 := two(s, 11)
	minute, ok6 := two(s, 14)
	sec, ok7 := two(s, 17)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
		return time.Time{}, false
	}
	year := y1*100 + y2
	nsec := 0
	if n > 20 {
		if s[19] != '.' || n == 21 {
			return time.Time{}, false
		}
		for i := 20; i < n-1; i++ {
			c := s[i] - '0'
			if c > 9 {
				return time.Time{}, false
			}
			nsec = nsec*10 + int(c)
		}
		for i := n - 21; i < 9; i++ {
			nsec *= 10
		}
	}
	if !ValidDate(year, month, day, hour, minute, sec) {
		return time.Time{}, false
	}
	return UTC(year, month, day, hour, minute, sec, nsec), true
}

// Two is the number of the two ASCII digits at s[i:i+2], and whether both are
// digits: a date-time's fields read at their offsets, without a loop.
func Two(s string, i int) (int, bool) { return two(s, i) }

// two is Two.
func two(s string, i int) (int, bool) {
	a, b := s[i]-'0', s[i+1]-'0'
	return int(a)*10 + int(b), a <= 9 && b <= 9
}

// UTC is time.Date(..., time.UTC) for fields already in range: the same value
// (time.Unix(...).UTC() sets the same fields), without Date's normalisation,
// which took 345 instructions a call.
func UTC(year, month, day, hour, minute, sec, nsec int) time.Time {
	// Days from 1970-01-01 to the date (proleptic Gregorian; H. Hinnant's
	// days_from_civil).
	y := year
	if month <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (month + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := int64(era)*146097 + int64(doe) - 719468
	return time.Unix(days*86400+int64(hour*3600+minute*60+sec), int64(nsec)).UTC()
}
