package aopoutput

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

const specFile = "aop-output-1.0.0 §Details File Format"

var detailsKinds = []string{KindDetails}

// FileMembers: the members a details file should include.
var FileMembers = &lint.Rule{
	ID: "AOPOUT-FILE-001", Title: "details file lacks recommended members", Protocol: ID, Kinds: detailsKinds, Severity: lint.Warning,
	Spec: specFile,
	Doc: "The details file (JSON) should include aop_version, agent_id, task, timestamp, duration_ms, results (the full " +
		"results, any size) and metadata. The spec says \"should\", so a missing member is a warning; wrong types are errors " +
		"(AOPOUT-SCHEMA-001).",
	Bad:  `{"results": {"files_found": []}}`,
	Good: `{"aop_version":"1.0.0","agent_id":"search-auth-1707130200","task":"Search for auth implementations","timestamp":"2026-02-05T10:30:00Z","duration_ms":12000,"results":{"files_found":[]},"metadata":{"files_scanned":234}}`,
	Run:  checkMembers,
}

// FileVersion: aop_version 1.0.0.
var FileVersion = &lint.Rule{
	ID: "AOPOUT-FILE-002", Title: "details file aop_version not 1.0.0", Protocol: ID, Kinds: detailsKinds, Severity: lint.Error,
	Spec: specFile,
	Doc: "`aop_version` of a details file is \"1.0.0\", the protocol version this file follows. Another 1.x version is a " +
		"warning; a version outside 1.x (or a number instead of a string) is an error.",
	Bad:  `{"aop_version": 1, "agent_id": "search-auth-1707130200", ...}`,
	Good: `{"aop_version": "1.0.0", "agent_id": "search-auth-1707130200", ...}`,
	Run:  checkVersion,
}

// FileTimestamp: timestamp is ISO 8601.
var FileTimestamp = &lint.Rule{
	ID: "AOPOUT-FILE-003", Title: "details file timestamp not ISO 8601", Protocol: ID, Kinds: detailsKinds, Severity: lint.Error,
	Spec: specFile,
	Doc:  "`timestamp` of a details file is an ISO 8601 date-time such as \"2026-02-05T10:30:00Z\" (a time without a zone is a warning).",
	Bad:  `{"aop_version": "1.0.0", "timestamp": "1707130200", ...}`,
	Good: `{"aop_version": "1.0.0", "timestamp": "2026-02-05T10:30:00Z", ...}`,
	Run:  checkFileTimestamp,
}

func init() { lint.Register(FileMembers, FileVersion, FileTimestamp) }

var recommended = []string{"aop_version", "agent_id", "task", "timestamp", "duration_ms", "results", "metadata"}

func checkMembers(p *lint.Pass) {
	root := p.Msg.Root
	if root == nil || root.Kind != jsonread.Object {
		return // the schema says it must be an object
	}
	var missing []string
	for _, k := range recommended {
		if !root.Has(k) {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return
	}
	p.Reportf("", "the details file lacks %s, which the spec says it should include (aop_version, agent_id, task, timestamp, duration_ms, results, metadata)", strings.Join(missing, ", "))
}

func checkVersion(p *lint.Pass) {
	v := p.Msg.Root.Get("aop_version")
	switch {
	case v == nil:
		return // FILE-001
	case !v.IsString():
		p.Reportf("/aop_version", "aop_version must be the string \"1.0.0\", not %s", v.Kind)
	case v.Str == "1.0.0":
		return
	case strings.HasPrefix(v.Str, "1."):
		p.ReportSevf(lint.Warning, "/aop_version", "aop_version %s: this is AOP 1.0.0, write \"1.0.0\"", quote(v.Str))
	default:
		p.Reportf("/aop_version", "aop_version %s is not an Agent Output Protocol 1.x version: details files of AOP 1.0.0 say \"1.0.0\"", quote(v.Str))
	}
	p.Claim("/aop_version")
}

func checkFileTimestamp(p *lint.Pass) {
	ts := p.Msg.Root.Get("timestamp")
	if ts == nil {
		return
	}
	if !ts.IsString() {
		p.Reportf("/timestamp", "timestamp must be an ISO 8601 string such as \"2026-02-05T10:30:00Z\", not %s", ts.Kind)
		p.Claim("/timestamp")
		return
	}
	_, zone, ok := spec.ParseTime(ts.Str)
	switch {
	case !ok:
		p.Reportf("/timestamp", "timestamp %s is not an ISO 8601 date-time: write it like \"2026-02-05T10:30:00Z\"", quote(ts.Str))
	case zone == isotime.ZoneNone:
		p.ReportSevf(lint.Warning, "/timestamp", "timestamp %s has no time zone: add Z (UTC) or an offset", quote(ts.Str))
	default:
		return
	}
	p.Claim("/timestamp")
}
