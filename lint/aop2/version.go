package aop2

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// VersionMissing: an AOP-looking message without aop_version.
var VersionMissing = ruleDocs.Rule(lint.Rule{ID: "AOP2-VERSION-001", Protocol: ID, Severity: lint.Error, Run: checkVersionMissing})

// VersionUnsupported: aop_version outside 2.x.
var VersionUnsupported = ruleDocs.Rule(lint.Rule{ID: "AOP2-VERSION-002", Protocol: ID, Severity: lint.Error, Run: checkVersionUnsupported})

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
