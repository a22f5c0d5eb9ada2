package aop2

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// UpstreamRefuses: a valid message the upstream implementation would refuse.
var UpstreamRefuses = ruleDocs.Rule(lint.Rule{ID: "AOP2-DIALECT-001", Protocol: ID, Severity: lint.Info, Run: checkUpstreamRefuses})

func init() { lint.Register(UpstreamRefuses) }

// upstreamRequired lists, per kind, the members the upstream implementation
// required and the contract does not (a switch: no map hashed per message).
func upstreamRequired(kind string) []string {
	switch kind {
	case KindResponse:
		return upstreamResponse
	case kindHeartbeat:
		return upstreamHeartbeat
	case kindProgress:
		return upstreamProgress
	case kindRollback:
		return upstreamRollback
	case kindEscalation:
		return upstreamEscalation
	}
	return nil
}

var (
	kindRollback   = eventKind("ROLLBACK_INITIATED")
	kindEscalation = eventKind("PRIORITY_ESCALATION")

	upstreamResponse   = []string{"/timing", "/task_status/message"}
	upstreamHeartbeat  = []string{"/agent"}
	upstreamProgress   = []string{"/agent", "/progress/percentage", "/progress/message"}
	upstreamRollback   = []string{"/trigger"}
	upstreamEscalation = []string{"/escalated_by"}
)

// upstreamInteger reports the members the contract lets be any number and the upstream
// implementation wanted as integers.
// (A switch, not a map: the walk asks it of every member of a TASK, RESPONSE
// and HEARTBEAT, and a switch on strings compares lengths first.)
func upstreamInteger(key string) bool {
	switch key {
	case "timeout_seconds", "interval_seconds", "retry_backoff_seconds", "duration_seconds", "progress_percentage":
		return true
	}
	return false
}

const upstreamDialect = "the upstream Python implementation of AOP v2 would refuse it"

func checkUpstreamRefuses(p *lint.Pass) {
	for _, at := range upstreamRequired(p.Msg.Kind) {
		parent, key := lint.MemberParent(p.Msg.Root, at)
		if parent == nil {
			continue // the parent's absence is reported (or allowed) on its own
		}
		if n := parent.Get(key); n == nil || n.Kind == jsonread.Null {
			p.Reportf(at, "%s is missing: valid (the contract does not require it), but %s", dotted(at), upstreamDialect)
		}
	}
	report(p, byFractional) // fractional numbers: the walk of the tree (walk.go)
}

// appendToken appends key as an escaped JSON Pointer token.
func appendToken(b []byte, key string) []byte {
	if strings.IndexByte(key, '~') < 0 && strings.IndexByte(key, '/') < 0 {
		return append(b, key...)
	}
	return append(b, jsonread.EscapeToken(key)...)
}
