// Package orchmsg holds the computations of the Agent↔Orchestrator stdio message
// protocol (specs/orchmsg-stdio.md) that more than one side needs: the message
// types and their families, the request timeout, the rate limit, the delegation
// depth of submitted tasks and the message size limit. aoplint's rules
// (lint/orchmsg), the reference engine (conform/engine/orchmsg), the conformance
// checks (conform/checks) and the mock agent all call this package, so that each
// requirement has one definition.
//
// Its wire structs (wire.go) are the messages as either side sends them:
// Decode reads one line into a Message (the base members of §Base Message
// Structure, a response's correlationId and error, and a Payload with the
// members of every type's payload: §Supported Requests, §Supported Events,
// §Orchestrator Notifications). Each member is a Field[T]: absent, present
// but no T (kept as sent, for a diagnostic), or its value; members are
// matched by their exact names. The checks, the engine, the orchestrator side
// and the mock agent read messages through them, not as maps.
//
// It is a leaf: primitives in, values out; it imports no lint or conform package.
package orchmsg

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/aopkit/aopkit/lint/internal/millis"
)

// Types are the fourteen message types, in the spec's order (§Message Types).
var Types = []string{
	"request:query-agents",
	"request:query-tasks",
	"request:submit-task",
	"request:get-task",
	"request:ask-user",
	"event:progress",
	"event:log",
	"event:error",
	"event:question",
	"response:success",
	"response:error",
	"notify:task-assigned",
	"notify:task-cancelled",
	"notify:shutdown",
}

// Type returns the spec's own string for t (Types holds it: a kind kept from
// a message never points into its line), or "" when t is none of the fourteen
// message types.
func Type(t string) string {
	if i := TypeIndex(t); i >= 0 {
		return Types[i]
	}
	return ""
}

// TypeIndex returns the index of t in Types, or -1. A switch, not a map: the
// compiler's search by length and compares with constants, a fifth of a map
// lookup's instructions, and it runs for every line a detector reads (TestType
// holds it to Types).
func TypeIndex(t string) int {
	switch t {
	case "request:query-agents":
		return 0
	case "request:query-tasks":
		return 1
	case "request:submit-task":
		return 2
	case "request:get-task":
		return 3
	case "request:ask-user":
		return 4
	case "event:progress":
		return 5
	case "event:log":
		return 6
	case "event:error":
		return 7
	case "event:question":
		return 8
	case "response:success":
		return 9
	case "response:error":
		return 10
	case "notify:task-assigned":
		return 11
	case "notify:task-cancelled":
		return 12
	case "notify:shutdown":
		return 13
	}
	return -1
}

// IsType reports whether t is one of the fourteen message types.
func IsType(t string) bool { return Type(t) != "" }

// ErrorCodes are the six error codes of §Error Codes.
var ErrorCodes = []string{"INVALID_REQUEST", "INVALID_MESSAGE_TYPE", "UNAUTHORIZED", "NOT_FOUND", "TIMEOUT", "INTERNAL_ERROR"}

// The families of message types (the part of the type before the colon).
const (
	Request  = "request"
	Event    = "event"
	Response = "response"
	Notify   = "notify"
)

// Family returns Request, Event, Response or Notify for a type string (known or
// not: "request:delete-task" is a request), or "". The prefix is chosen by the
// first byte, then compared once (every message's type goes through here; a
// loop of HasPrefix over the four took five times the instructions).
// FuzzFamily holds it to that loop.
func Family(t string) string {
	if t == "" {
		return ""
	}
	var fam string
	switch t[0] {
	case 'r':
		fam = Request
		if len(t) > 2 && t[2] == 's' {
			fam = Response
		}
	case 'e':
		fam = Event
	case 'n':
		fam = Notify
	default:
		return ""
	}
	if len(t) > len(fam) && t[len(fam)] == ':' && t[:len(fam)] == fam {
		return fam
	}
	return ""
}

// Sender is the side that sends messages of type t: "agent" for requests and
// events, "orchestrator" for responses and notifications, "" otherwise.
func Sender(t string) string {
	switch Family(t) {
	case Request, Event:
		return "agent"
	case Response, Notify:
		return "orchestrator"
	}
	return ""
}

// IsAgentType reports whether t is one of the nine types an agent sends.
func IsAgentType(t string) bool { return IsType(t) && Sender(t) == "agent" }

// RequestTimeout is the default request timeout (§Timeouts: "Requests timeout
// after 30 seconds (configurable)").
const RequestTimeout = 30 * time.Second

// RequestDeadline is how long the orchestrator may take to answer a request of
// type typ: request:ask-user waits for the user as long as its payload.timeout
// (milliseconds, when askTimeoutMs is positive; §Supported Requests 5), every
// other request RequestTimeout. A timeout of 10^12 ms or more (past what a
// Duration is sure to hold) is the longest Duration, not the default.
func RequestDeadline(typ string, askTimeoutMs float64) time.Duration {
	if typ == "request:ask-user" && askTimeoutMs > 0 {
		return millis.Duration(askTimeoutMs)
	}
	return RequestTimeout
}

// RateLimit is the message limit per agent within RateWindow (§Security
// Considerations 3: "100 msg/sec limit").
const RateLimit = 100

// RateWindow is the sliding window of RateLimit.
const RateWindow = time.Second

// Rate counts one agent's messages over a sliding RateWindow; each message
// carries a value of the caller's (a record, a position for a diagnostic). The
// zero value is ready to use.
type Rate[T any] struct {
	// ring holds the last RateLimit+1 messages; it grows to that size as they
	// come, so an agent that sends a few messages costs a few entries.
	ring []rateEntry[T]
	next int // where the next entry goes, once the ring is full
}

type rateEntry[T any] struct {
	t time.Time
	v T
}

// Add counts a message sent at t (times in order) and reports whether it is over
// the limit: the RateLimit messages before it all came within RateWindow. first
// and firstAt are then the first message of that window.
func (r *Rate[T]) Add(t time.Time, v T) (over bool, first T, firstAt time.Time) {
	if len(r.ring) < RateLimit+1 {
		r.ring = append(r.ring, rateEntry[T]{t, v})
		if len(r.ring) < RateLimit+1 {
			return false, first, firstAt
		}
		r.next = 0 // full: the oldest entry is the first
	} else {
		r.ring[r.next] = rateEntry[T]{t, v}
		r.next = (r.next + 1) % len(r.ring)
	}
	oldest := r.ring[r.next] // the entry RateLimit messages back
	if t.Sub(oldest.t) >= RateWindow {
		return false, first, firstAt
	}
	return true, oldest.v, oldest.t
}

// Reset empties r for another agent, keeping its ring's memory.
func (r *Rate[T]) Reset() {
	clear(r.ring) // drop the values' references
	r.ring, r.next = r.ring[:0], 0
}

// MaxDelegationDepth is how deep tasks an agent submits may nest (engine policy:
// the depth limit of aop2 §12 E_MAX_DEPTH_EXCEEDED and AOF; the orchmsg spec has
// none of its own).
const MaxDelegationDepth = 3

// SubmittedDepth is the depth of a task an agent submits while working on a task
// at depth parent (the assigned task is at depth 0): one level below the deepest
// of that task and of its dependencies (at the depths deps).
func SubmittedDepth(parent int, deps ...int) int {
	d := parent + 1
	for _, x := range deps {
		d = max(d, x+1)
	}
	return d
}

// MaxMessage bounds one message (one stdout line) in bytes: a longer line is cut
// by the orchestrator and lost (bindings §orchmsg; the harness reads lines of at
// most this many bytes).
const MaxMessage = 1 << 20

// DefaultGracePeriod is the grace period assumed when notify:shutdown names none
// (the spec's example: "gracePeriod": 30000).
const DefaultGracePeriod = 30 * time.Second

// Roles are the agent roles of §Supported Requests 1.
var Roles = []string{"worker", "planner", "reviewer"}

// TaskStatuses are the task statuses of §Supported Requests 2 (query-tasks'
// status filter).
var TaskStatuses = []string{"queued", "running", "completed"}

// LogLevels are event:log's levels (§Supported Events 2).
var LogLevels = []string{"info", "warn", "error"}

// IsRole reports whether r is one of Roles.
func IsRole(r string) bool {
	for _, x := range Roles {
		if x == r {
			return true
		}
	}
	return false
}

// CompletesTask reports whether an agent message of type typ with payload
// progress (when hasProgress) and recoverable says its task is over: progress 1
// (§Progress Update) or an unrecoverable event:error (§Error Report).
func CompletesTask(typ string, progress float64, hasProgress bool, recoverable, hasRecoverable bool) bool {
	switch typ {
	case "event:progress":
		return hasProgress && progress >= 1
	case "event:error":
		return !hasRecoverable || !recoverable
	}
	return false
}

// TimeFormat is how the reference orchestrator and the reference agent write a
// message's timestamp: ISO 8601, UTC, milliseconds (§Message Format; ORCH-BASE-002).
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime writes t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// MessageID is a deterministic UUID-shaped id (version 4 layout) with a prefix,
// such as "req-123e4567-e89b-42d3-a456-426614174000" (ORCH-BASE-003): the same
// seed gives the same id, so transcripts are reproducible; distinct seeds give
// distinct ids.
func MessageID(prefix, seed string) string {
	h := sha256.Sum256([]byte(seed))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return prefix + "-" + x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// IsID reports whether s is an id as the spec has them (§Base Message
// Structure "id: string; // UUID for correlation", §Correlation "Each request
// gets unique UUID"): a UUID, bare (randomUUID()) or with a short prefix
// ("req-123e4567-..."), i.e. it matches
// ^(?:[A-Za-z][A-Za-z0-9_.]*[-_:])?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$:
// the UUID is the last 36 bytes, and what comes before it is empty or a prefix.
// aoplint's ORCH-BASE-003 and aopconform's orchmsg/format/base-fields both
// judge by it.
func IsID(s string) bool {
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
