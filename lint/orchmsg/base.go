package orchmsg

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// BaseID: every message has an id.
var BaseID = ruleDocs.Rule(lint.Rule{ID: "ORCH-BASE-001", Protocol: ID, Severity: lint.Error, Run: checkID})

// BaseTimestamp: every message has an ISO 8601 timestamp.
var BaseTimestamp = ruleDocs.Rule(lint.Rule{ID: "ORCH-BASE-002", Protocol: ID, Severity: lint.Error, Run: checkTimestamp})

// BaseUUID: ids are UUIDs.
var BaseUUID = ruleDocs.Rule(lint.Rule{ID: "ORCH-BASE-003", Protocol: ID, Severity: lint.Warning, Run: checkUUID})

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
	requireString(p, m.Root.Get("id"), "/id",
		func() string {
			return "the message has no \"id\": every message needs a unique id (a UUID such as \"req-123e4567-e89b-12d3-a456-426614174000\")"
		},
		"\"id\" must be a string (a UUID such as \"req-123e4567-e89b-12d3-a456-426614174000\")",
		"\"id\" is empty: every message needs a unique id (a UUID)")
}

// requireString reports n, the member at ptr, when it is not a non-empty
// string: absent (absent's words, made only then), of another kind (mustBe,
// then the kind it is) or empty (empty's words); and claims ptr then.
func requireString(p *lint.Pass, n *jsonread.Node, ptr string, absent func() string, mustBe, empty string) {
	switch {
	case n == nil:
		p.Reportf(ptr, "%s", absent())
	case !n.IsString():
		p.Reportf(ptr, "%s, not a %s", mustBe, n.Kind)
	case n.Str == "":
		p.Reportf(ptr, "%s", empty)
	default:
		return
	}
	p.Claim(ptr)
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

func checkUUID(p *lint.Pass) {
	m := p.Msg
	if skipBase(m) {
		return
	}
	id := m.Root.Get("id")
	if !id.IsString() || id.Str == "" || spec.IsID(id.Str) {
		return
	}
	p.Reportf("/id", "id %s is not a UUID: the spec's ids are UUIDs, bare or with a short prefix, such as \"req-123e4567-e89b-12d3-a456-426614174000\"", quote(id.Str))
}
