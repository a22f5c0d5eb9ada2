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
	Bad:  `{"type":"event:log","id":"evt-7b409f93-2d2c-48e9-8f0c-17676c8420d3","timestamp":"04/02/2026 14:30","payload":{"level":"info","message":"started"}}`,
	Good: `{"type":"event:log","id":"evt-7b409f93-2d2c-48e9-8f0c-17676c8420d3","timestamp":"2026-02-04T14:30:00Z","payload":{"level":"info","message":"started"}}`,
	Run:  checkTimestamp,
}

// BaseUUID: ids are UUIDs.
var BaseUUID = &lint.Rule{
	ID: "ORCH-BASE-003", Title: "id is not a UUID", Protocol: ID, Severity: lint.Warning,
	Spec: "orchmsg-stdio §Base Message Structure; §Correlation",
	Doc: "The spec types `id` as \"UUID for correlation\" and says each request gets a unique UUID (so does aopkit's binding). Its " +
		"examples use a UUID with a short prefix (\"req-123e4567-...\", \"res-...\", \"evt-...\"); its TypeScript usage example " +
		"uses a bare `randomUUID()`. Both are fine. Counters and timestamps such as \"1\", \"req-1\" or \"request-1796596858957\" " +
		"collide across agents and restarts. A warning: the field's type is string, and the UUID a comment on it; " +
		"aopconform's orchmsg/format/uuid-ids (a SHOULD) judges ids by the same test (lint/spec/orchmsg.IsID).",
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
