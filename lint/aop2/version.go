package aop2

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// VersionMissing: an AOP-looking message without aop_version.
var VersionMissing = &lint.Rule{
	ID: "AOP2-VERSION-001", Title: "aop_version is missing", Protocol: ID, Severity: lint.Error,
	Spec: "aop2 §1.1 Canonical Version Header; §1.3 V2 Detection",
	Doc: "Every AOP v2 message carries aop_version (§1.1, REQUIRED). The detection pipeline (§1.3) validates a parsed message as v2 only when aop_version starts with \"2.\"; " +
		"a parsed message without it is not v2 (the orchestrator tries v1 markdown detection, then classifies it UNSTRUCTURED). " +
		"aoplint recognises the message as AOP by its protocol_family or message_type and reports the missing version.",
	Bad:  `{"schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "TASK", "session": {...}, "target": {...}, "task": {...}}`,
	Good: `{"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "TASK", "session": {...}, "target": {...}, "task": {...}}`,
	Run:  checkVersionMissing,
}

// VersionUnsupported: aop_version outside 2.x.
var VersionUnsupported = &lint.Rule{
	ID: "AOP2-VERSION-002", Title: "unsupported aop_version", Protocol: ID, Severity: lint.Error,
	Spec: "aop2 §1.1 Compatibility; §1.3 V2 Detection",
	Doc: "Orchestrators MUST accept any aop_version that starts with \"2.\" (§1.1) and validate it as v2 (§1.3 step 2). " +
		"Any other value (\"1.0\", \"3.0.0\", a number) is not a version this contract covers: the message cannot be validated as v2. " +
		"AOP v1 was a markdown prompt, not a JSON envelope.",
	Bad:  `{"aop_version": "3.0.0", "message_type": "EVENT", "event": "HEARTBEAT", ...}`,
	Good: `{"aop_version": "2.0.2-C", "message_type": "EVENT", "event": "HEARTBEAT", ...}`,
	Run:  checkVersionUnsupported,
}

func checkVersionMissing(p *lint.Pass) {
	root := p.Msg.Root
	if root == nil || root.Has("aop_version") {
		return
	}
	p.Claim("/aop_version")
	p.Reportf("", "aop_version is missing: §1.3 validates a message as v2 only when aop_version starts with \"2.\" (without it the orchestrator falls back to v1 detection); add \"aop_version\": %q", defaultVersion)
}

func checkVersionUnsupported(p *lint.Pass) {
	v := p.Msg.Root.Get("aop_version")
	if v == nil {
		return
	}
	p.Claim("/aop_version")
	switch {
	case !v.IsString():
		p.Reportf("/aop_version", "aop_version must be a string starting with \"2.\", such as %q, not a %s (§1.1)", defaultVersion, v.Kind)
	case strings.HasPrefix(v.Str, "2."):
	case p.Msg.Dialect == DialectV1:
		p.Reportf("/aop_version", "unsupported version: aop_version %s is AOP v1, which is a markdown prompt, not a JSON envelope; a JSON message of this contract has an aop_version starting with \"2.\", such as %q (§1.1, §1.3)", describe(v), defaultVersion)
	default:
		p.Reportf("/aop_version", "unsupported version: aop_version %s does not start with \"2.\"; this contract covers 2.x only, such as %q (§1.1, §1.3)", describe(v), defaultVersion)
	}
}

func init() { lint.Register(VersionMissing, VersionUnsupported) }
