// Package discover decides which files aoplint lints when it walks a directory or
// when it is told to lint only protocol files: a file is a protocol file when it
// carries a marker of one of the five protocols. Everything else (package.json,
// tsconfig.json, JSON Schemas, READMEs) is skipped and counted, not reported.
//
// The rule, as documented in docs/configuration.md:
//
//  1. The name ends in .json, .jsonl, .ndjson, .aop or .txt (Candidate).
//  2. The first HeadSize bytes carry a marker (Marker):
//     - a line that begins with "AOF/1 " (aof framing);
//     - text a protocol's text detector claims (an aop-output report: "[AOP:START]",
//     "[AOP:SUMMARY]", ... markers that AOP 1.0.0 defines);
//     - a JSON object, as the whole file or as one line of a JSON-lines file (or an
//     element of a top-level array), with a marker member at its top level (lint.Protocol.Markers),
//     an orchmsg "type" ("request:...", "response:...", "event:...", "notify:...")
//     or a JSON-RPC "method" with "params" or "id".
//     An object with a "$schema" member is a JSON Schema and carries no marker.
//     A line or file that is not valid JSON is searched for the same member names
//     as quoted keys ("jsonrpc":), so a broken message is still linted (and
//     reported), while a broken package.json is not.
package discover

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/generic"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// HeadSize is how much of a file Marker looks at.
const HeadSize = 1 << 20

// Extensions are the file name extensions aoplint reads.
var Extensions = []string{".json", ".jsonl", ".ndjson", ".aop", ".txt"}

// Candidate reports whether a file of this name may hold protocol messages.
func Candidate(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range Extensions {
		if e == ext {
			return true
		}
	}
	return false
}

// transcriptMarker marks an aopkit transcript (transcript/1 records); the
// protocols' markers are theirs (lint.Protocol.Markers).
var transcriptMarker = lint.Marker{Key: "aopkit", Value: "transcript/1"}

// Transcript is Marker's answer for an aopkit transcript.
const Transcript = "transcript/1"

// FileMarker reads the head of the file at path and returns Marker's answer. A
// path that is not a regular file is an error (safefile.Open), never waited on.
func FileMarker(path string) (protocol string, err error) {
	f, err := safefile.Open(path, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, HeadSize))
	if err != nil {
		return "", err
	}
	return Marker(head), nil
}

// Marker returns the protocol whose marker head carries first, or "" when it
// carries none. "transcript/1" names an aopkit transcript.
func Marker(head []byte) string {
	head = bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF"))
	trimmed := bytes.TrimSpace(head)
	if len(trimmed) == 0 {
		return ""
	}
	// The whole file as one JSON value.
	if trimmed[0] == '{' || trimmed[0] == '[' {
		if root, _, err := jsonread.Parse(trimmed); err == nil {
			return valueMarker(root)
		}
	}
	// Line by line: JSON lines, AOF/1 lines, broken JSON.
	complete := len(head) < HeadSize
	lines := bytes.Split(head, []byte("\n"))
	if !complete && len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last line may be cut short
	}
	for _, l := range lines {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if p := prefixMarker(l); p != "" {
			return p
		}
		if l[0] != '{' && l[0] != '[' {
			continue
		}
		if root, _, err := jsonread.Parse(l); err == nil {
			if p := valueMarker(root); p != "" {
				return p
			}
			continue
		}
		if p := quotedMarker(l); p != "" {
			return p
		}
	}
	// A single JSON value that does not parse (a broken message).
	if trimmed[0] == '{' || trimmed[0] == '[' {
		if p := quotedMarker(trimmed); p != "" {
			return p
		}
	}
	for _, p := range lint.Protocols() {
		if p.DetectText == nil {
			continue
		}
		if _, _, c := p.DetectText(head); c > 0 {
			return p.ID
		}
	}
	return ""
}

// valueMarker looks at a parsed value: an object, or an array of objects (a
// JSON-RPC batch).
func valueMarker(v *jsonread.Node) string {
	switch v.Kind {
	case jsonread.Object:
		return objectMarker(v)
	case jsonread.Array:
		for _, it := range v.Items {
			if it.Kind == jsonread.Object {
				if p := objectMarker(it); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

func objectMarker(obj *jsonread.Node) string {
	if generic.IsJSONSchema(obj) {
		return ""
	}
	return markedBy(func(m lint.Marker) bool {
		v := obj.Get(m.Key)
		return v != nil && (m.Value == "" || v.String() == m.Value)
	}, func(p *lint.Protocol) bool { return p.MarkObject != nil && p.MarkObject(obj) })
}

// markedBy returns what carries a marker by has: an aopkit transcript, else
// the first listed protocol with one of its Markers, else the first whose
// weaker sign (weak: MarkObject, MarkText) it shows; "" for none.
func markedBy(has func(lint.Marker) bool, weak func(*lint.Protocol) bool) string {
	if has(transcriptMarker) {
		return Transcript
	}
	for _, p := range lint.ListedProtocols() {
		for _, m := range p.Markers {
			if has(m) {
				return p.ID
			}
		}
	}
	for _, p := range lint.ListedProtocols() {
		if weak(p) {
			return p.ID
		}
	}
	return ""
}

// prefixMarker returns the protocol whose LinePrefix frames line, or "".
func prefixMarker(line []byte) string {
	for _, p := range lint.ListedProtocols() {
		if p.LinePrefix != "" && bytes.HasPrefix(line, []byte(p.LinePrefix)) {
			return p.ID
		}
	}
	return ""
}

// quotedMarker searches text that is not valid JSON for a marker member name used
// as a key.
func quotedMarker(text []byte) string {
	if bytes.Contains(text, []byte(`"$schema"`)) {
		return ""
	}
	return markedBy(func(m lint.Marker) bool {
		i := bytes.Index(text, []byte(`"`+m.Key+`"`))
		if i < 0 {
			return false
		}
		rest := bytes.TrimLeft(text[i+len(m.Key)+2:], " \t\r\n")
		return len(rest) > 0 && rest[0] == ':'
	}, func(p *lint.Protocol) bool { return p.MarkText != nil && p.MarkText(text) })
}
