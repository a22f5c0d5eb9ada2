// Package aop2 holds aoplint's rules for the AOP JSON v2 contract (Cyclops 2.0.2-C):
// detection (§1.3), one schema per message kind, the semantic rules schemas cannot
// say, and the sequence rules over a session (guard rails, heartbeats, progress,
// timeouts, delegation depth, budgets).
//
// Rule IDs are AOP2-<AREA>-<NNN>; the rules of an area live in <area>.go, the
// sequence rules (AOP2-SEQ-*) in seq*.go.
package aop2

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// ID is the protocol's id.
const ID = "aop2"

const specName = "aop2-orchestration-json-v2.0.2-C"

// Message kinds.
const (
	KindTask     = "TASK"
	KindResponse = "RESPONSE"
	KindEvent    = "EVENT" // an EVENT whose event name is missing or unknown
)

// Event names (§6-§10), as in v2.0.0.
var eventNames = []string{"HEARTBEAT", "PROGRESS_UPDATE", "ROLLBACK_INITIATED", "PRIORITY_ESCALATION", "VERSION_FALLBACK", "SESSION_FINAL_REPORT"}

// eventKind is the message kind of an EVENT: "EVENT:HEARTBEAT".
func eventKind(name string) string {
	if i := eventIndex(name); i >= 0 {
		return eventKinds[i] // no concatenation per message
	}
	return KindEvent + ":" + name
}

// eventIndex is the index of name in eventNames, -1 for no event name: a
// switch, the compiler's search by length and compares with constants, not a
// scan of the list (detection and four rules ask it of every message;
// TestEventIndex holds it to eventNames).
func eventIndex(name string) int {
	switch name {
	case "HEARTBEAT":
		return 0
	case "PROGRESS_UPDATE":
		return 1
	case "ROLLBACK_INITIATED":
		return 2
	case "PRIORITY_ESCALATION":
		return 3
	case "VERSION_FALLBACK":
		return 4
	case "SESSION_FINAL_REPORT":
		return 5
	}
	return -1
}

// eventKinds are the kinds of eventNames, by index.
var eventKinds = func() []string {
	out := make([]string, len(eventNames))
	for i, e := range eventNames {
		out[i] = KindEvent + ":" + e
	}
	return out
}()

var (
	kindTask         = []string{KindTask}
	kindResponse     = []string{KindResponse}
	kindTaskResponse = []string{KindTask, KindResponse}
	kindHeartbeat    = eventKind("HEARTBEAT")
	kindProgress     = eventKind("PROGRESS_UPDATE")
	messageTypes     = []string{"TASK", "RESPONSE", "EVENT"}
	defaultVersion   = "2.0.2-C"
)

// allKinds are the message kinds: TASK, RESPONSE, EVENT and one per event name.
var allKinds = func() []string {
	kinds := append([]string{KindTask, KindResponse}, KindEvent)
	for _, e := range eventNames {
		kinds = append(kinds, eventKind(e))
	}
	return kinds
}()

// Protocol is aop2's lint-level descriptor (listed in lint/all).
var Protocol = &lint.Protocol{
	ID:       ID,
	Name:     "AOP JSON v2 (Cyclops 2.0.2-C)",
	Spec:     specName,
	SpecFile: specName + ".md",
	Version:  defaultVersion,
	Kinds:    allKinds,
	Detect:   Detect,
	Schema:   SchemaFile,
	// §2: the envelope's members.
	Markers: []lint.Marker{{Key: "aop_version"}, {Key: "message_type"}, {Key: "protocol_family"}},
	// §3: "Any core object MAY have an extensions object" with x_ keys.
	Extensions: []string{"extensions"},
}

// SchemaFile names the schema of a kind within package schemas' FS.
func SchemaFile(kind string) string {
	// The kinds Detect names by a switch on constants (the driver asks for
	// every message): not the memo's scan (TestSchemaFileOf holds the two to
	// schemaFileOf).
	switch kind {
	case KindTask:
		return "aop2/task.schema.json"
	case KindResponse:
		return "aop2/response.schema.json"
	case KindEvent:
		return "aop2/event.schema.json"
	case "EVENT:HEARTBEAT":
		return "aop2/event.HEARTBEAT.schema.json"
	case "EVENT:PROGRESS_UPDATE":
		return "aop2/event.PROGRESS_UPDATE.schema.json"
	}
	return schemaFiles.Get(kind)
}

var schemaFiles = lint.KindMemo{F: schemaFileOf}

func schemaFileOf(kind string) string {
	switch {
	case kind == KindTask:
		return "aop2/task.schema.json"
	case kind == KindResponse:
		return "aop2/response.schema.json"
	case kind == KindEvent:
		return "aop2/event.schema.json"
	case strings.HasPrefix(kind, KindEvent+":") && isEventName(kind[len(KindEvent)+1:]):
		return "aop2/event." + kind[len(KindEvent)+1:] + ".schema.json"
	case isEventName(kind): // "HEARTBEAT" for "EVENT:HEARTBEAT", as users type it
		return "aop2/event." + kind + ".schema.json"
	}
	return ""
}

func isEventName(s string) bool { return eventIndex(s) >= 0 }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Dialects the detector names.
const (
	// DialectV1 is a JSON message with an aop_version of 1.x: AOP v1 was a markdown
	// prompt (§1.3 step 3), never a JSON envelope.
	DialectV1 = "v1"
	// DialectUnversioned is a message that looks like AOP but lacks aop_version.
	DialectUnversioned = "unversioned"
)

// Detect follows the §1.3 pipeline on a parsed JSON value: an object whose
// aop_version starts with "2." is v2 (certain); an aop_version outside 2.x is still
// this protocol's (its version is reported as unsupported); without aop_version,
// an object with protocol_family "AOP" or a message_type of TASK, RESPONSE or EVENT
// is taken as an AOP message whose version is missing.
func Detect(root *jsonread.Node, name string) (kind, dialect string, confidence int) {
	if root == nil || root.Kind != jsonread.Object {
		return "", "", 0
	}
	// The kind is read only for a message claimed (most lines of a stream
	// are another protocol's: no lookups for them).
	v := root.Get("aop_version")
	switch {
	case v.IsString() && strings.HasPrefix(v.Str, "2."):
		return kindOf(root), "", 100
	case v != nil:
		if v.IsString() && strings.HasPrefix(v.Str, "1") {
			return kindOf(root), DialectV1, 90
		}
		return kindOf(root), "", 90
	case root.Get("protocol_family").String() == "AOP":
		return kindOf(root), DialectUnversioned, 80
	case contains(messageTypes, root.Get("message_type").String()):
		return kindOf(root), DialectUnversioned, 60
	case isEventName(root.Get("event").String()) && (root.Has("session_id") || root.Has("task_id")):
		return kindOf(root), DialectUnversioned, 40
	}
	return "", "", 0
}

// kindOf is the kind named by message_type (and event), "" when unknown.
// root is an object.
func kindOf(root *jsonread.Node) string {
	// message_type and event found in one pass over the members, from the
	// last as Get finds a key (a Get each scanned most of the members twice;
	// FuzzKindOf holds it to the Gets).
	var mt, ev *jsonread.Node
	ms := root.Members
	for i := len(ms) - 1; i >= 0; i-- {
		switch ms[i].Key {
		case "message_type":
			if mt == nil {
				mt = ms[i].Value
			}
		case "event":
			if ev == nil {
				ev = ms[i].Value
			}
		}
	}
	switch mt.String() {
	case "TASK":
		return KindTask
	case "RESPONSE":
		return KindResponse
	case "EVENT":
		if e := ev.String(); isEventName(e) {
			return eventKind(e)
		}
		return KindEvent
	}
	if e := ev.String(); isEventName(e) && mt == nil {
		return eventKind(e)
	}
	return ""
}

// quoteList renders allowed values for a message: "TASK, RESPONSE, EVENT".
func quoteList(vs []string) string { return strings.Join(vs, ", ") }

// isObject reports whether n is a JSON object.
func isObject(n *jsonread.Node) bool { return n != nil && n.Kind == jsonread.Object }

// describe renders a value briefly for messages: "STATUS" for strings, the JSON type otherwise.
func describe(n *jsonread.Node) string {
	if n == nil {
		return "missing"
	}
	if n.Kind == jsonread.String {
		s := n.Str
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return `"` + s + `"`
	}
	return n.Scalar()
}

// dotted renders a pointer as a member path for messages: "/timing/started_at" is
// "timing.started_at".
func dotted(pointer string) string {
	return strings.ReplaceAll(strings.TrimPrefix(pointer, "/"), "/", ".")
}
