// Package orchmsg lints the Agent↔Orchestrator stdio message protocol: JSON messages
// of fourteen types over stdin/stdout, with non-JSON lines treated as logs.
//
// Detection follows the spec's "Parsing Strategy": a JSON value with a `type` field
// goes to the message handler. Known types are certain; unknown types that look like
// protocol messages (`request:`, `event:`, `response:`, `notify:`) are orchmsg with
// an unknown-type diagnostic; the upstream prototype's `task_notification` is named.
package orchmsg

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/generic"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// ID is the protocol's identifier.
const ID = "orchmsg"

const specName = "orchmsg-stdio"

// Dialects the detector names.
const (
	// DialectTaskNotification is the upstream prototype's stdin notification
	// {"type":"task_notification","taskId":...,"message":...}.
	DialectTaskNotification = "upstream task_notification"
	// DialectTaskDefinition is a task definition (the payload of request:submit-task,
	// such as upstream examples/demo-task.json) given where a message is expected.
	DialectTaskDefinition = "task definition"
)

// Types are the fourteen message types, in the spec's order (lint/spec/orchmsg).
var Types = spec.Types

// IsType reports whether t is one of the fourteen message types.
func IsType(t string) bool { return spec.IsType(t) }

// ErrorCodes are the six error codes of §Error Codes.
var ErrorCodes = spec.ErrorCodes

// family returns "request", "event", "response" or "notify" for a type string, or "".
func family(t string) string { return spec.Family(t) }

// Protocol is orchmsg's lint-level descriptor (listed in lint/all).
var Protocol = &lint.Protocol{
	ID:       ID,
	Name:     "Agent↔Orchestrator stdio message protocol",
	Spec:     specName,
	SpecFile: specName + ".md", // unversioned
	Kinds:    Types,
	Detect:   Detect,
	Schema:   SchemaFile,
	// BaseMessage: correlationId, or a "type" of the form "family:name" with
	// one of the spec's families.
	Markers: []lint.Marker{{Key: "correlationId"}},
	MarkObject: func(obj *jsonread.Node) bool {
		t := obj.Get("type")
		return t.IsString() && family(t.Str) != ""
	},
	MarkText: func(text []byte) bool {
		if !bytes.Contains(text, []byte(`"type"`)) {
			return false
		}
		for _, fam := range []string{spec.Request, spec.Response, spec.Event, spec.Notify} {
			if bytes.Contains(text, []byte(`"`+fam+`:`)) {
				return true
			}
		}
		return false
	},
	LogLines: `orchmsg Parsing Strategy: "If not JSON → treat as log output"`,
	// A payload's metadata object (the ask-user answer): only the payload's
	// own, not a metadata member at the top level or deeper, which no orchmsg
	// message defines.
	Extensions:   []string{"metadata"},
	ExtensionsAt: func(ptr string) bool { return ptr == "/payload" },
}

// SchemaFile names the schema of a kind: "orchmsg/request-query-agents.schema.json".
func SchemaFile(kind string) string {
	if i := spec.TypeIndex(kind); i >= 0 {
		return schemaFiles[i]
	}
	return ""
}

// schemaFiles are the schemas of spec.Types (schemaFileOf), found by the
// type's index: the driver asks for every message.
var schemaFiles = func() []string {
	files := make([]string, len(spec.Types))
	for i, t := range spec.Types {
		files[i] = schemaFileOf(t)
	}
	return files
}()

func schemaFileOf(kind string) string {
	if !spec.IsType(kind) {
		return ""
	}
	return "orchmsg/" + strings.Replace(kind, ":", "-", 1) + ".schema.json"
}

// Detect follows the Parsing Strategy: valid JSON with a `type` field is routed to
// the message handler.
func Detect(root *jsonread.Node, _ string) (kind, dialect string, confidence int) {
	if root == nil || root.Kind != jsonread.Object || generic.IsJSONSchema(root) {
		// A JSON Schema document's "type" ("object") is no message type.
		return "", "", 0
	}
	t := root.Get("type")
	if t == nil {
		// No type: the handler would not route it. A value that is otherwise shaped
		// like a message (a response missing its type) is orchmsg, weakly.
		if root.Get("correlationId").IsString() && root.Has("id") {
			return "", "", 15
		}
		return "", "", 0
	}
	if !t.IsString() {
		return "", "", 10
	}
	switch s, kind := t.Str, spec.Type(t.Str); {
	case kind != "":
		return kind, "", 90 // the spec's string: the kind is kept (rule sets by kind)
	case s == "task_notification":
		return "", DialectTaskNotification, 80
	case family(s) != "":
		return "", "", 70
	case !root.Has("id") && !root.Has("timestamp") && root.Get("name").IsString():
		return "", DialectTaskDefinition, 20
	default:
		return "", "", 10
	}
}

// msgType returns the message's type string ("" when absent or not a string).
func msgType(m *lint.Message) string { return m.Root.Get("type").String() }

// when is the time of a message: the harness clock when known, else the message's
// own timestamp (ts, its "timestamp" member as the caller read it); zero when
// neither is known.
func when(m *lint.Message, ts *jsonread.Node) time.Time {
	if !m.At.IsZero() {
		return m.At
	}
	if m.Root == nil {
		return time.Time{}
	}
	t, _, ok := spec.ParseTime(ts.String())
	if !ok {
		return time.Time{}
	}
	return t
}

// typeSender is the side that sends messages of m's type t (msgType(m)): ""
// if unknown.
func typeSender(m *lint.Message, t string) string {
	if m.Root == nil {
		return ""
	}
	if m.Dialect == DialectTaskNotification {
		return "orchestrator"
	}
	return spec.Sender(t)
}

// quote shortens a value for a message.
func quote(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return strconv.Quote(s)
}

func list(xs []string) string { return strings.Join(xs, ", ") }
