// Package aos holds the computations of AOS 0.1.0 (specs/aos-0.1.0.md) that the
// linter (lint/aos), the reference guardian (conform/engine/aos), the conformance
// checks (conform/checks) and the reference agent (mockagent/aos) share: the method
// names (§4), what a request id is and how a response echoes it (§3.12.1), the
// ISO 8601 timestamps (§3.8) and the format the reference sides write them in.
//
// Its wire structs (wire.go) are the JSON-RPC messages of §3.12: DecodeRequest
// reads a POST body into a Request (jsonrpc, id, method and the Params of the
// ten methods, §4), DecodeResponse an answer into a Response (an
// AOSSuccessResult or PingRequestResult as Result, §5; a JSONRPCError, §3.13).
// Each member is a Field[T]: absent, present but no T (kept as sent), or its
// value; members are matched by their exact names, and numbers keep their text
// (AnyNumber) for the ids and arguments the guardian echoes. The checks, the
// guardian and the reference agent read messages through them.
//
// It is a leaf: primitives in, values out, no lint or conform imports.
package aos

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/aopkit/aopkit/lint/internal/isotime"
)

// Methods of AOS 0.1.0 §4.
const (
	MethodAgentTrigger       = "steps/agentTrigger"
	MethodKnowledgeRetrieval = "steps/knowledgeRetrieval"
	MethodMemoryStore        = "steps/memoryStore"
	MethodMemoryContext      = "steps/memoryContextRetrieval"
	MethodMessage            = "steps/message"
	MethodToolCallRequest    = "steps/toolCallRequest"
	MethodToolCallResult     = "steps/toolCallResult"
	MethodA2A                = "protocols/A2A"
	MethodMCP                = "protocols/MCP"
	MethodPing               = "ping"
)

// Methods are the ten request methods of AOS 0.1.0 §4, in spec order.
var Methods = []string{
	MethodAgentTrigger, MethodKnowledgeRetrieval, MethodMemoryStore, MethodMemoryContext,
	MethodMessage, MethodToolCallRequest, MethodToolCallResult, MethodA2A, MethodMCP, MethodPing,
}

// Method returns the spec's own string for m (a constant: a kind kept from a
// message never points into its line), or "" when m is none of the ten AOS
// methods.
func Method(m string) string {
	if i := MethodIndex(m); i >= 0 {
		return Methods[i]
	}
	return ""
}

// MethodIndex returns the index of m in Methods, or -1. A switch, not a map:
// the compiler's search by length and compares with constants, a fifth of a
// map lookup's instructions (TestMethod holds it to Methods).
func MethodIndex(m string) int {
	switch m {
	case MethodAgentTrigger:
		return 0
	case MethodKnowledgeRetrieval:
		return 1
	case MethodMemoryStore:
		return 2
	case MethodMemoryContext:
		return 3
	case MethodMessage:
		return 4
	case MethodToolCallRequest:
		return 5
	case MethodToolCallResult:
		return 6
	case MethodA2A:
		return 7
	case MethodMCP:
		return 8
	case MethodPing:
		return 9
	}
	return -1
}

// IsMethod reports whether m is one of the ten AOS methods.
func IsMethod(m string) bool { return Method(m) != "" }

// Decisions of an AOSSuccessResult (§5.1.1).
const (
	Allow  = "allow"
	Deny   = "deny"
	Modify = "modify"
)

// IsDecision reports whether d is one of the three decisions.
func IsDecision(d string) bool { return d == Allow || d == Deny || d == Modify }

// ID is a request id as §3.12.1 allows it: a string, or an integral number
// (1 and 1.0 are the same number id).
type ID struct {
	IsNumber bool
	Str      string // the string id, or the decimal text of a number id
}

// String renders the id as JSON (a string id quoted, a number bare).
func (id ID) String() string {
	if id.IsNumber {
		return id.Str
	}
	b, _ := json.Marshal(id.Str)
	return string(b)
}

// Value is the id as a JSON value to echo (string or int64).
func (id ID) Value() any {
	if id.IsNumber {
		i, _ := strconv.ParseInt(id.Str, 10, 64)
		return i
	}
	return id.Str
}

// RequestID reads a decoded JSON value (encoding/json with or without UseNumber)
// as a request id: "MUST contain a String or Number(Integer) value" (§3.12.1).
// ok is false for a fractional number, a boolean, null, an object or an array.
func RequestID(v any) (id ID, ok bool) {
	switch x := v.(type) {
	case string:
		return ID{Str: x}, true
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return ID{IsNumber: true, Str: strconv.FormatInt(i, 10)}, true
		}
		if f, err := x.Float64(); err == nil {
			return numberID(f)
		}
	case float64:
		return numberID(x)
	case int:
		return ID{IsNumber: true, Str: strconv.Itoa(x)}, true
	case int64:
		return ID{IsNumber: true, Str: strconv.FormatInt(x, 10)}, true
	}
	return ID{}, false
}

// NumberID reports whether RequestID accepts the JSON number n as a request id
// (an integer, §3.12.1), without making the ID: a rule that only judges an id
// asks this.
func NumberID(n json.Number) bool {
	if digitsInt64(string(n)) {
		return true // what n.Int64 accepts, without its parse
	}
	if _, err := n.Int64(); err == nil {
		return true
	}
	f, err := n.Float64()
	return err == nil && IntegerNumber(f)
}

// digitsInt64 reports whether s is an optional '-' and 1 to 18 ASCII digits:
// an integer strconv.ParseInt reads within int64.
func digitsInt64(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IntegerNumber reports whether f is an integer a request id may be (§3.12.1).
func IntegerNumber(f float64) bool {
	return !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f) && math.Abs(f) < 1<<53
}

func numberID(f float64) (ID, bool) {
	if !IntegerNumber(f) {
		return ID{}, false
	}
	return ID{IsNumber: true, Str: strconv.FormatInt(int64(f), 10)}, true
}

// Echoes reports whether a response id echoes the request id want with the same
// value and the same JSON type (§3.12.2: "the same as the value of the id member in
// the Request Object"; a string id comes back as that string, a number as that
// number: 1 answered with "1" is wrong). got is a decoded JSON value.
func Echoes(got any, want ID) bool {
	g, ok := RequestID(got)
	return ok && g == want
}

// isoForm is the ISO 8601 extended date-time: YYYY-MM-DDThh:mm[:ss[.fff]] with an
// optional Z or ±hh[:mm] offset (a space for T is tolerated), matched byte by byte.
var isoForm = isotime.Form{Seps: "T "}

// TimestampProblem says why s is no ISO 8601 date-time (§3.8 StepContext.timestamp,
// §4.9.1, §5.3.1), or "" when it is one.
func TimestampProblem(s string) string {
	if plainUTC(s) {
		return ""
	}
	m, ok := isoForm.Match(s)
	if !ok {
		return "is not an ISO 8601 date-time"
	}
	year, month, day, hour, minute, sec := m.Fields()
	if sec == 60 {
		sec = 59 // leap second
	}
	if !isotime.ValidDate(year, month, day, hour, minute, sec) { // time.Parse's checks, without building its input
		return "is not a real date and time"
	}
	return ""
}

// plainUTC reports whether s is a real date and time of the form nearly
// every message writes, YYYY-MM-DDThh:mm:ss[.f+]Z, read at its fixed offsets:
// TimestampProblem's answer for it is "", without the general match. false
// says nothing (FuzzTimestampProblem holds the two paths together).
func plainUTC(s string) bool {
	n := len(s)
	if n < 20 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	if n > 20 {
		if s[19] != '.' || n == 21 {
			return false
		}
		for i := 20; i < n-1; i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
	}
	y1, ok1 := isotime.Two(s, 0)
	y2, ok2 := isotime.Two(s, 2)
	month, ok3 := isotime.Two(s, 5)
	day, ok4 := isotime.Two(s, 8)
	hour, ok5 := isotime.Two(s, 11)
	minute, ok6 := isotime.Two(s, 14)
	sec, ok7 := isotime.Two(s, 17)
	if sec == 60 {
		sec = 59 // leap second
	}
	return ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && isotime.ValidDate(y1*100+y2, month, day, hour, minute, sec)
}

// TimeLayout is how the reference guardian and the reference agent write AOS
// timestamps: ISO 8601, UTC, milliseconds (the spec's examples: "2025-01-24T15:30:45.123Z").
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime writes t as an AOS timestamp (TimeLayout).
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }
