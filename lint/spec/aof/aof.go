// Package aof is the one home of AOF/1's computations (specs/aof-1.md): the task
// state machine, completion outcomes and the transitions they lead to, the
// heartbeat's expiry and staleness, the delegation depth guard, the message types
// and the size limits. The linter (lint/aof), the reference engine
// (conform/engine/aof), the conformance checks (conform/checks) and mockagent all
// call it; it imports neither lint nor conform (primitives in, values out).
//
// It also holds the protocol's wire messages, typed (wire.go): DecodeEnvelope
// reads one message into an Envelope (§Envelope Fields) with the payload of its
// type, a CompletionReport (§Completion Report Payload), StatusUpdate (§Status
// Update Payload), HandoffRequest (§Handoff Request Payload; DecodeHandoff reads
// the same from inputs/handoff.json) or HandoffAck (§Handoff
// Acceptance/Rejection). Every member is a Member[T]: Set when the object has it
// (null included), OK when its value has the spec's type, V the value; members
// are matched by their exact names, the last of a repeated name winning, as a
// decoding into map[string]any finds them (FuzzDecodeEnvelope holds the two
// equal).
package aof

import (
	"strings"
	"time"
)

// Task statuses (aof-1 §Overview, the upstream task store).
const (
	Backlog    = "backlog"
	Ready      = "ready"
	InProgress = "in-progress"
	Review     = "review"
	Done       = "done"
	Blocked    = "blocked"
	Cancelled  = "cancelled"
)

// Statuses lists every task status in lifecycle order.
var Statuses = []string{Backlog, Ready, InProgress, Review, Done, Blocked, Cancelled}

// transitions is the task state machine: the lifecycle diagram of aof-1 §Overview
// (backlog → ready → in-progress → review → done; in-progress → blocked; blocked →
// review), the reclaim in-progress → ready of §Resume Protocol, and the upstream
// store's gates (done is terminal, blocked → ready, review → in-progress, cancel
// from any live status).
var transitions = map[string][]string{
	Backlog:    {Ready, Blocked, Cancelled},
	Ready:      {InProgress, Backlog, Blocked, Cancelled},
	InProgress: {Review, Blocked, Ready, Cancelled},
	Review:     {Done, InProgress, Blocked, Cancelled},
	Blocked:    {Ready, Review, Cancelled},
	Done:       nil,
	Cancelled:  nil,
}

// IsStatus reports whether s is a task status.
func IsStatus(s string) bool {
	_, ok := transitions[s]
	return ok
}

// ValidTransition reports whether the state machine allows from → to.
func ValidTransition(from, to string) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

// AllowedFrom lists the statuses the state machine allows from a status (nil for
// a terminal or unknown one).
func AllowedFrom(from string) []string { return append([]string(nil), transitions[from]...) }

// Completion outcomes (aof-1 §Completion Report Payload).
const (
	OutcomeDone        = "done"
	OutcomeBlocked     = "blocked"
	OutcomeNeedsReview = "needs_review"
	OutcomePartial     = "partial"
)

// ValidOutcome reports whether o is a CompletionOutcome.
func ValidOutcome(o string) bool {
	switch o {
	case OutcomeDone, OutcomeBlocked, OutcomeNeedsReview, OutcomePartial:
		return true
	}
	return false
}

// CompletionTransitions maps an outcome to the statuses a task in status current
// moves through, in order (aof-1 §Transition Logic, resolveCompletionTransitions):
// done → review (→ done unless the task requires review), blocked → blocked,
// needs_review and partial → review.
func CompletionTransitions(current string, reviewRequired bool, outcome string) []string {
	switch outcome {
	case OutcomeDone:
		if current == Done {
			return nil
		}
		if reviewRequired {
			return []string{Review}
		}
		return []string{Review, Done}
	case OutcomeBlocked:
		return []string{Blocked}
	case OutcomeNeedsReview, OutcomePartial:
		return []string{Review}
	}
	return nil
}

// DefaultTTL is the heartbeat TTL of aof-1 §Resume Protocol: 5 minutes.
const DefaultTTL = 5 * time.Minute

// ExpiresAt is a heartbeat's expiresAt: lastHeartbeat + TTL (§Artifacts 2).
func ExpiresAt(last time.Time, ttl time.Duration) time.Time { return last.Add(ttl) }

// Stale reports whether a heartbeat expiring at expiresAt is stale at now: the
// scheduler treats expiresAt <= now as stale (§Stale Heartbeat Flow), so a
// heartbeat is already stale at its expiresAt.
func Stale(expiresAt, now time.Time) bool { return !expiresAt.After(now) }

// MaxDelegationDepth is the delegation depth guard: a parent of depth 0 may
// delegate a child (depth 1); a child may not delegate again (§Delegation Depth
// Guard).
const MaxDelegationDepth = 1

// NestedDelegation reports whether a handoff.request from a task at parentDepth
// breaks the depth guard (the router rejects it with nested_delegation).
func NestedDelegation(parentDepth int64) bool { return parentDepth+1 > MaxDelegationDepth }

// Prefix is the optional line prefix of an AOF/1 message (§Message Detection).
const Prefix = "AOF/1 "

// Message types (§Message Types).
const (
	TypeCompletion      = "completion.report"
	TypeStatusUpdate    = "status.update"
	TypeHandoffRequest  = "handoff.request"
	TypeHandoffAccepted = "handoff.accepted"
	TypeHandoffRejected = "handoff.rejected"
)

// KnownType reports whether t is a ProtocolMessageType.
func KnownType(t string) bool {
	switch t {
	case TypeCompletion, TypeStatusUpdate, TypeHandoffRequest, TypeHandoffAccepted, TypeHandoffRejected:
		return true
	}
	return false
}

// Size limits of the upstream schema (reference/README.md, upstream/aof). Strings
// are counted in UTF-16 code units, as JavaScript (and Zod) count them.
const (
	MaxMessage    = 10 << 20 // bytes of one message
	MaxSummaryRef = 256      // summaryRef, handoffRef
	MaxNotes      = 10000
	MaxProgress   = 1000
	MaxReason     = 512
	MaxItem       = 256 // one item of a string list
	MaxListItems  = 50  // deliverables, acceptanceCriteria, expectedOutputs, contextRefs, constraints
	MaxBlockers   = 20
)

// ValidTaskID reports whether id matches the guide's TASK-YYYY-MM-DD-NNN
// (§Envelope Fields), which is normative: the regular expression
// ^TASK-\d{4}-\d{2}-\d{2}-\d{3}$, checked byte by byte (a test holds the two equal)
// so that no regexp is compiled at start-up.
func ValidTaskID(id string) bool { return fitsLayout(id, taskIDLayout) }

// UpstreamTaskID reports whether id is the live implementation's TaskId, with its
// -NN suffix (reference/README.md, upstream/aof): ^TASK-\d{4}-\d{2}-\d{2}-\d{3}-\d{2}$.
func UpstreamTaskID(id string) bool { return fitsLayout(id, taskIDLayout+"-00") }

// taskIDLayout is a task id's form: '0' stands for an ASCII digit, any other byte
// for itself (a layout holds no other digit: fitsLayout reads each digit as '0').
const taskIDLayout = "TASK-0000-00-00-000"

func fitsLayout(s, layout string) bool {
	if len(s) != len(layout) {
		return false
	}
	// Each byte as the layout writes it (a digit as '0'), its difference from
	// the layout's or'd in: one test at the end, not two branches a byte.
	var diff byte
	for i := 0; i < len(s); i++ {
		diff |= asLayout[s[i]] ^ layout[i]
	}
	return diff == 0
}

// asLayout is each byte as a layout writes it: '0' for an ASCII digit, any
// other byte itself.
var asLayout = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = '0'
	}
	return t
}()

// TimeFormat is how the reference dispatcher writes times (ISO 8601, UTC,
// milliseconds), as the upstream store's new Date().toISOString() does.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime writes t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// TrimPrefix removes the optional "AOF/1 " prefix (and surrounding blanks) of a
// line; prefixed says whether it was there.
func TrimPrefix(line string) (rest string, prefixed bool) {
	s := strings.TrimSpace(line)
	if r, ok := strings.CutPrefix(s, Prefix); ok {
		return strings.TrimSpace(r), true
	}
	return s, false
}

// Length is a string's length as the limits count it (AOF-LIMIT-001, and the
// upstream Zod schema, which is JavaScript): UTF-16 code units, so a character
// outside the Basic Multilingual Plane counts 2.
func Length(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 { // a surrogate pair; ranging a string yields no rune past MaxRune
			n += 2
		} else {
			n++
		}
	}
	return n
}
