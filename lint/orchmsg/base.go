package orchmsg

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// BaseID: every message has an id.
var BaseID = &lint.Rule{
	ID: "ORCH-BASE-001", Title: "message id required", Protocol: ID, Severity: lint.Error,
	Spec: "orchmsg-stdio §Base Message Structure",
	Doc: "Every message carries `id`, a non-empty string (a UUID for correlation). Responses name the request they answer by " +
		"its id in `correlationId`, so a request without an id can never be answered.",
	Bad:  `{"type":"request:get-task","timestamp":"2026-02-04T14:30:00Z","payload":{"taskId":"task-123"}}`,
	Good: `{"type":"request:get-task","id":"req-123e4567-e89b-12d3-a456-426614174000","timestamp":"2026-02-04T14:30:00Z","payload":{"taskId":"task-123"}}`,
	Run:  checkID,
}

// BaseTimestamp: every message has an ISO 8601 timestamp.
var BaseTimestamp = &lint.Rule{
	ID: "ORCH-BASE-002", Title: "ISO 8601 timestamp required", Protocol: ID, Severity: lint.Error,
	Spec: "orchmsg-stdio §Base Message Structure",
	Doc: "Every message carries `timestamp`, an ISO 8601 date and time such as \"2026-02-04T14:30:00Z\" or \"2026-02-04T14:30:00.123Z\" " +
		"(what `new Date().toISOString()` writes). A time without a zone is ambiguous and is a warning; use Z (UTC).",
	Bad:  `{"type":"event:log","id":"evt-1","timestamp":"04/02/2026 14:30","payload":{"level":"info","message":"started"}}`,
	Good: `{"type":"event:log","id":"evt-1","timestamp":"2026-02-04T14:30:00Z","payload":{"level":"info","message":"started"}}`,
	Run:  checkTimestamp,
}

// BaseUUID: ids are UUIDs.
var BaseUUID = &lint.Rule{
	ID: "ORCH-BASE-003", Title: "id is not a UUID", Protocol: ID, Severity: lint.Warning,
	Spec: "orchmsg-stdio §Base Message Structure; §Correlation",
	Doc: "The spec types `id` as \"UUID for correlation\" and says each request gets a unique UUID. Its examples use a UUID " +
		"with a short prefix (\"req-123e4567-...\", \"res-...\", \"evt-...\"); its TypeScript usage example uses a bare " +
		"`randomUUID()`. Both are fine. Counters such as \"1\" or \"req-1\" collide across agents and restarts.",
	Bad:  `{"type":"request:query-tasks","id":"req-1","timestamp":"2026-02-04T14:30:00Z","payload":{"status":"queued"}}`,
	Good: `{"type":"request:query-tasks","id":"req-123e4567-e89b-12d3-a456-426614174000","timestamp":"2026-02-04T14:30:00Z","payload":{"status":"queued"}}`,
	Run:  checkUUID,
}

func init() { lint.Register(BaseID, BaseTimestamp, BaseUUID) }

// skipBase: dialect messages get one precise diagnostic instead.
func skipBase(m *lint.Message) bool {
	return m.Root == nil || m.Dialect != "" || m.Root.Get("type") == nil
}

func checkID(p *lint.Pass) {
	m := p.Msg
	if skipBase(m) {
		return
	}
	id := m.Root.Get("id")
	switch {
	case id == nil:
		p.Reportf("/id", "the message has no \"id\": every message needs a unique id (a UUID such as \"req-123e4567-e89b-12d3-a456-426614174000\")")
	case !id.IsString():
		p.Reportf("/id", "\"id\" must be a string (a UUID such as \"req-123e4567-e89b-12d3-a456-426614174000\"), not a %s", id.Kind)
	case id.Str == "":
		p.Reportf("/id", "\"id\" is empty: every message needs a unique id (a UUID)")
	default:
		return
	}
	p.Claim("/id")
}

func checkTimestamp(p *lint.Pass) {
	m := p.Msg
	if skipBase(m) {
		return
	}
	ts := m.Root.Get("timestamp")
	switch {
	case ts == nil:
		p.Reportf("/timestamp", "the message has no \"timestamp\": add an ISO 8601 time such as \"2026-02-04T14:30:00Z\"")
	case !ts.IsString():
		p.Reportf("/timestamp", "\"timestamp\" must be an ISO 8601 string such as \"2026-02-04T14:30:00Z\", not a %s", ts.Kind)
	default:
		_, zone, ok := spec.ParseTime(ts.Str)
		switch {
		case !ok:
			p.Reportf("/timestamp", "timestamp %s is not an ISO 8601 date-time: write it like \"2026-02-04T14:30:00Z\" or \"2026-02-04T14:30:00.123Z\"", quote(ts.Str))
		case zone == isotime.ZoneNone:
			p.ReportSevf(lint.Warning, "/timestamp", "timestamp %s has no time zone: add Z (UTC) or an offset, such as %q", quote(ts.Str), ts.Str+"Z")
		default:
			return
		}
	}
	p.Claim("/timestamp")
}

// isPrefixedUUID matches s against
// ^(?:[A-Za-z][A-Za-z0-9_.]*[-_:])?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$:
// the UUID is the last 36 bytes, and what comes before it is empty or a prefix.
func isPrefixedUUID(s string) bool {
	if len(s) < 36 {
		return false
	}
	pre, u := s[:len(s)-36], s[len(s)-36:]
	// The UUID's hex digits are tested eight bytes at a time (hexBytes): the
	// words at 0, 8, 16, 24 and 28 (which overlaps 24 to cover the last
	// four), each against where its digits are.
	if u[8] != '-' || u[13] != '-' || u[18] != '-' || u[23] != '-' ||
		hexBytes(le64(u, 0)) != allBytes || hexBytes(le64(u, 8)) != uuidWord1 || hexBytes(le64(u, 16)) != uuidWord2 ||
		hexBytes(le64(u, 24)) != allBytes || hexBytes(le64(u, 28)) != allBytes {
		return false
	}
	if pre == "" {
		return true
	}
	if last := pre[len(pre)-1]; last != '-' && last != '_' && last != ':' {
		return false
	}
	for i := 0; i < len(pre)-1; i++ {
		c := pre[i]
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '_' || c == '.')) {
			return false
		}
	}
	return len(pre) >= 2
}

// The high bit of each of a word's eight bytes, and of the bytes of the UUID's
// words at 8 and 16 that are hex digits ("-xxxx-xx" and "xx-xxxx-": the
// dashes at 8, 13, 18 and 23), the first byte lowest.
const (
	allBytes  = 0x8080808080808080
	uuidWord1 = 0x8080_0080_8080_8000
	uuidWord2 = 0x0080_8080_8000_8080
)

// le64 is the eight bytes of s from i, the first lowest.
func le64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// hexBytes returns the high bit of each byte of x that is an ASCII hex digit
// (0-9, a-f, A-F). Each byte is compared by adding 0x80-c to its low seven
// bits, which sets its high bit when it is at least c and never carries into
// the next byte; a byte with its high bit set is no digit.
func hexBytes(x uint64) uint64 {
	const ones = 0x0101010101010101
	ascii := ^x & allBytes
	y := x &^ allBytes
	atLeast := func(y uint64, c uint64) uint64 { return (y + ones*(0x80-c)) & allBytes }
	digit := atLeast(y, '0') &^ atLeast(y, '9'+1)
	l := y | ones*0x20 // A-F as a-f (no other byte becomes one of a-f)
	letter := atLeast(l, 'a') &^ atLeast(l, 'f'+1)
	return (digit | letter) & ascii
}

func checkUUID(p *lint.Pass) {
	m := p.Msg
	if skipBase(m) {
		return
	}
	id := m.Root.Get("id")
	if !id.IsString() || id.Str == "" || isPrefixedUUID(id.Str) {
		return
	}
	p.Reportf("/id", "id %s is not a UUID: the spec's ids are UUIDs, bare or with a short prefix, such as \"req-123e4567-e89b-12d3-a456-426614174000\"", quote(id.Str))
}
