// Package generic holds the rules that belong to no single protocol: what the JSON
// reader and the detector find before any protocol's rules can run. The linter
// driver reports them; they have no Run function of their own.
package generic

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// Parse is input that is not valid JSON where JSON is required.
	Parse = &lint.Rule{
		ID: "GEN-JSON-001", Title: "invalid JSON (E_PARSE_FAILURE)", Severity: lint.Error,
		Spec: "aop2 §1.3 step 1; RFC 8259",
		Doc:  "The message is not valid JSON. The aop2 detection pipeline (§1.3) starts with a JSON parse; a message that fails it is E_PARSE_FAILURE. The diagnostic points at the first byte the parser could not accept.",
		Bad:  `{"type":"event:log","id":"evt-7b409f93-2d2c-48e9-8f0c-17676c8420d3","timestamp":"2026-01-01T00:00:00Z","payload":{"level":"info","message":"started"},}`,
		Good: `{"type":"event:log","id":"evt-7b409f93-2d2c-48e9-8f0c-17676c8420d3","timestamp":"2026-01-01T00:00:00Z","payload":{"level":"info","message":"started"}}`,
	}
	DuplicateKey = &lint.Rule{
		ID: "GEN-JSON-002", Title: "duplicate object key", Severity: lint.Error, Spec: "RFC 8259 §4",
		Doc:  "An object names the same key twice. RFC 8259 says names SHOULD be unique and that parsers disagree on which value wins, so two tools can read the same message differently. Keep one.",
		Bad:  `{"taskId": "TASK-2026-02-09-057", "taskId": "TASK-2026-02-09-058"}`,
		Good: `{"taskId": "TASK-2026-02-09-057"}`,
	}
	Trailing = &lint.Rule{
		ID: "GEN-JSON-003", Title: "trailing data after the JSON value", Severity: lint.Error, Spec: "RFC 8259 §2",
		Doc:  "A message is exactly one JSON value. Data after it (a second object, stray text) is ignored by some parsers and rejected by others. For several messages, use one per line (JSON lines).",
		Bad:  `{"type":"event:log","id":"evt-8b5cc4df-7eec-4d32-8781-4eca4af047ae","timestamp":"2026-01-01T00:00:00Z","payload":{"level":"info","message":"started"}} garbage`,
		Good: `{"type":"event:log","id":"evt-8b5cc4df-7eec-4d32-8781-4eca4af047ae","timestamp":"2026-01-01T00:00:00Z","payload":{"level":"info","message":"started"}}`,
	}
	UTF8 = &lint.Rule{
		ID: "GEN-JSON-004", Title: "invalid UTF-8", Severity: lint.Error, Spec: "RFC 8259 §8.1",
		Doc:  "JSON text exchanged between systems must be UTF-8. The message contains bytes that are not valid UTF-8.",
		Bad:  "{\"summary\": \"caf\\xe9\"}  (a Latin-1 byte)",
		Good: `{"summary": "café"}`,
	}
	BOM = &lint.Rule{
		ID: "GEN-JSON-005", Title: "byte-order mark", Severity: lint.Warning, Spec: "RFC 8259 §8.1",
		Doc:  "The input starts with a UTF-8 byte-order mark. RFC 8259 says implementations MUST NOT add one; many parsers reject it. aoplint skips it and goes on.",
		Bad:  "\\xEF\\xBB\\xBF{\"protocol\":\"aof\",\"version\":1,\"type\":\"status.update\", ...}",
		Good: `{"protocol":"aof","version":1,"type":"status.update","taskId":"TASK-2026-02-09-059","fromAgent":"swe-qa","toAgent":"dispatcher","sentAt":"2026-02-09T21:20:00.000Z","payload":{"taskId":"TASK-2026-02-09-059","agentId":"swe-qa","progress":"Executed 50/100 test cases"}}`,
	}
	Depth = &lint.Rule{
		ID: "GEN-JSON-006", Title: "nesting too deep", Severity: lint.Error, Spec: "RFC 8259 §9",
		Doc:  "Arrays and objects nest deeper than 256 levels. No protocol message needs that; such input is an attack on parsers. aoplint stops reading the message.",
		Bad:  `[[[[[[ ... 300 levels ... ]]]]]]`,
		Good: `{"payload": {"items": [1, 2, 3]}}`,
	}
	Size = &lint.Rule{
		ID: "GEN-SIZE-001", Title: "message too large to lint", Severity: lint.Error, Spec: "aop2 §4; aof-1 (10 MiB message limit)",
		Doc:  "A single message (one line of a stream, or a whole file) is larger than aoplint's bound of 16 MiB. It is skipped, not parsed. No protocol allows messages that large: the largest, AOF, stops at 10 MiB.",
		Bad:  "a 100 MB line",
		Good: "messages under the protocol's limit",
	}
	Empty = &lint.Rule{
		ID: "GEN-INPUT-001", Title: "empty input", Severity: lint.Error, Spec: "aop2 §1.3",
		Doc:  "The file or stream holds no message at all. An empty answer is never a valid message of any protocol.",
		Bad:  "(an empty file)",
		Good: `{"protocol":"aof","version":1, ...}`,
	}
	Unstructured = &lint.Rule{
		ID: "GEN-DETECT-001", Title: "no protocol recognised (UNSTRUCTURED)", Severity: lint.Error, Spec: "aop2 §1.3 step 4; aof-1 Message Detection; orchmsg Parsing Strategy",
		Doc:  "The input is neither a message of any of the five protocols nor text that one of them allows. aop2 §1.3 classifies such input as UNSTRUCTURED. Use --protocol to force a protocol and see its own diagnostics.",
		Bad:  `{"hello": "world"}`,
		Good: `{"type":"event:log","id":"evt-7b409f93-2d2c-48e9-8f0c-17676c8420d3","timestamp":"2026-01-01T00:00:00Z","payload":{"level":"info","message":"started"}}`,
	}
	LogLine = &lint.Rule{
		ID: "GEN-DETECT-002", Title: "non-JSON line in a stream", Severity: lint.Error, Spec: "orchmsg Parsing Strategy; aop2 §1.3",
		Doc:  "A line of a JSON-lines stream is not JSON. In orchmsg streams the spec treats such lines as log output, so they are reported as info; in every other protocol a non-JSON line is an error.",
		Bad:  "compiling...   (between aop2 EVENT lines)",
		Good: `{"aop_version":"2.0.2-C","message_type":"EVENT", ...}`,
	}
	Transcript = &lint.Rule{
		ID: "GEN-TRANSCRIPT-001", Title: "malformed transcript record", Severity: lint.Error, Spec: "docs/transcript-format.md",
		Doc:  "A line carries \"aopkit\":\"transcript/1\" but is not a valid record: seq, at (RFC 3339) and from are required, and exactly one of msg, text, event.",
		Bad:  `{"aopkit":"transcript/1","from":"agent","msg":{}}`,
		Good: `{"aopkit":"transcript/1","seq":1,"at":"2026-11-22T10:00:00Z","from":"agent","msg":{}}`,
	}
)

// Rules lists this package's rules.
var Rules = []*lint.Rule{Parse, DuplicateKey, Trailing, UTF8, BOM, Depth, Size, Empty, Unstructured, LogLine, Transcript}

func init() { lint.Register(Rules...) }

// schemaTypes are the type names of JSON Schema.
var schemaTypes = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// schemaKeywords are keywords only a JSON Schema has at its top level beside a
// "type" naming a JSON Schema type.
var schemaKeywords = []string{"properties", "items", "$id", "$defs", "definitions", "additionalProperties", "patternProperties", "allOf", "anyOf", "oneOf"}

// IsJSONSchema reports whether obj is a JSON Schema document, not a message: it
// has a "$schema" member, or a "type" that is a JSON Schema type name (or a list
// of them) beside a keyword only schemas have ("properties", "items", "$id",
// ...). Its "type" ("object") is no orchmsg message type.
func IsJSONSchema(obj *jsonread.Node) bool {
	if obj == nil || obj.Kind != jsonread.Object {
		return false
	}
	if obj.Has("$schema") {
		return true
	}
	t := obj.Get("type")
	isType := func(n *jsonread.Node) bool {
		for _, s := range schemaTypes {
			if n.IsString() && n.Str == s {
				return true
			}
		}
		return false
	}
	typed := isType(t)
	if t != nil && t.Kind == jsonread.Array && len(t.Items) > 0 {
		typed = true
		for _, it := range t.Items {
			typed = typed && isType(it)
		}
	}
	if !typed {
		return false
	}
	for _, k := range schemaKeywords {
		if obj.Has(k) {
			return true
		}
	}
	return false
}
