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
var FileMembers = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-FILE-001", Protocol: ID, Kinds: detailsKinds, Severity: lint.Warning, Spec: specFile, Run: checkMembers})

// FileVersion: aop_version 1.0.0.
var FileVersion = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-FILE-002", Protocol: ID, Kinds: detailsKinds, Severity: lint.Error, Spec: specFile, Run: checkVersion})

// FileTimestamp: timestamp is ISO 8601.
var FileTimestamp = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-FILE-003", Protocol: ID, Kinds: detailsKinds, Severity: lint.Error, Spec: specFile, Run: checkFileTimestamp})

func init() { lint.Register(FileMembers, FileVersion, FileTimestamp) }

var recommended = spec.DetailsMembers

func checkMembers(p *lint.Pass) {
	root := p.Msg.Root
	if root == nil || root.Kind != jsonread.Object {
		return // the schema says it must be an object
	}
	missing := lacking(recommended, root.Has)
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
