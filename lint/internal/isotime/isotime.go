// Package isotime matches the ISO 8601 extended date-times the protocols write
// (YYYY-MM-DDThh:mm[:ss[.fff]] with an optional Z or ±hh[[:]mm] offset) with byte
// checks instead of a regular expression: the rules check every timestamp of
// every message, and the regexp cost allocations and most of their time.
package isotime

import (
	"encoding/binary"
	"sync/atomic"
	"time"
	"unsafe"
)

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
	if n < 20 || n > 30 || s[n-1] != 'Z' {
		return time.Time{}, false
	}
	// The first 19 bytes, "YYYY-MM-DDThh:mm:ss", as three little-endian words,
	// each byte XORed with its template's: a digit's byte is then its value (at
	// most 9, for '0'-'9' alone), a separator's 0. One test of the three words'
	// high bits checks every byte (see ok19).
	p := unsafe.Pointer(unsafe.StringData(s))
	a := binary.LittleEndian.Uint64((*[8]byte)(p)[:]) ^ tmplA
	b := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, 8))[:]) ^ tmplB
	c := uint64(binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(p, 16))[:])&0xFFFFFF) ^ tmplC
	if !ok19(a, b, c) {
		return time.Time{}, false
	}
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
		nsec *= pow10[9-(n-21)] // n-21 digits, 1 to 9
	}
	hour, minute, sec := digit(b, 3)*10+digit(b, 4), digit(b, 6)*10+digit(b, 7), digit(c, 1)*10+digit(c, 2)
	if hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	year := digit(a, 0)*1000 + digit(a, 1)*100 + digit(a, 2)*10 + digit(a, 3)
	month, day := digit(a, 5)*10+digit(a, 6), digit(b, 0)*10+digit(b, 1)
	days, ok := daysOf(year, month, day)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(days*86400+int64(hour*3600+minute*60+sec), int64(nsec)).UTC(), true
}

// ParseRFC3339 reads s as time.Parse(time.RFC3339Nano, s) does (the same
// time.Time), ParseUTC's form at its speed and any other through time.Parse.
// It is the reader of transcript/1's "at", the harness's own times (the
// driver's and prototest's), not of a protocol's: those are their dialects'.
func ParseRFC3339(s string) (time.Time, bool) {
	if t, ok := ParseUTC(s); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// The templates of ParseUTC's three words ('0' for a digit, the separator
// itself), and what ok19 adds to each byte to set its high bit when the XORed
// byte is too big: 0x76 for a digit (more than 9), 0x7F for a separator (not 0).
const (
	tmplA = 0x2D30302D30303030 // "0000-00-"
	tmplB = 0x30303A3030543030 // "00T00:00"
	tmplC = 0x30303A           // ":00"
	addA  = 0x7F76767F76767676
	addB  = 0x76767F76767F7676
	addC  = 0x76767F
	high  = 0x8080808080808080
)

// ok19 reports whether every byte of the XORed words is in range: a byte with
// its high bit set is out of range, and so is one that adding its limit's
// complement carries into the high bit. (A byte without the high bit plus at
// most 0x7F stays below 0x100: no carry into the next byte.)
func ok19(a, b, c uint64) bool {
	return (a|(a+addA)|b|(b+addB)|c|(c+addC))&high == 0
}

// digit is byte i of w (a digit's value, after ParseUTC's XOR).
func digit(w uint64, i int) int { return int(w >> (8 * i) & 0xFF) }

// pow10 scales a fraction of 9-i digits to nanoseconds.
var pow10 = [9]int{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000}

// lastDate caches the last date ParseUTC read: consecutive timestamps of a
// transcript nearly always share it. It is one word, read and written
// atomically (aoplint's workers parse at once): the date's key
// (YYYYMMDD as a number, plus 1 so that 0 is empty) in the high half, its days since
// 1970-01-01 in the low half. Only dates that exist are cached.
var lastDate atomic.Uint64

// daysOf returns the days from 1970-01-01 to the date, and whether the date
// exists (month 1-12, a day of that month).
func daysOf(year, month, day int) (int64, bool) {
	key := uint64(year*10000+month*100+day) + 1 // each field of at most its digits: no two dates share a key
	if d := lastDate.Load(); d>>32 == key {
		return int64(int32(uint32(d))), true
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return 0, false
	}
	days := daysFromCivil(year, month, day)
	lastDate.Store(key<<32 | uint64(uint32(int32(days))))
	return days, true
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
	return time.Unix(daysFromCivil(year, month, day)*86400+int64(hour*3600+minute*60+sec), int64(nsec)).UTC()
}

// daysFromCivil is the number of days from 1970-01-01 to the date (proleptic
// Gregorian; H. Hinnant's days_from_civil).
func daysFromCivil(year, month, day int) int64 {
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
	return int64(era)*146097 + int64(doe) - 719468
}
