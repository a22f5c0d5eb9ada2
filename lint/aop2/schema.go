package aop2

import (
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/schemas"
)

// Schema validates a message against the schema of its kind (schemas/aop2/).
var Schema = &lint.Rule{
	ID: "AOP2-SCHEMA-001", Title: "message matches the schema of its kind", Protocol: ID, Severity: lint.Error,
	Spec:   "aop2 §2 Core TASK Envelope; §5 Executor Response; §6-§10 events",
	Doc:    "The message is validated against the draft-07 schema of its kind (aoplint schema aop2 TASK prints it): required members, types, and the v2.0.0 enum values the contract keeps (\"Enums and defaults remain as in v2.0.0\", §2.1). Where a precise rule reported a member already, the generic schema error for it is left out.",
	Bad:    `{"aop_version": "2.0.2-C", "message_type": "TASK", ..., "target": {"agent_name": "Emma", "role": "EXECUTOR", "provider": "OPENAI", "model": "gpt-5.3-codex"}, ...}`,
	Good:   `{"aop_version": "2.0.2-C", "message_type": "TASK", ..., "target": {"agent_name": "Emma", "role": "EXECUTOR", "provider": "CODEX", "model": "gpt-5.3-codex"}, ...}`,
	Schema: true,
	Run:    linter.SchemaRun,
}

// UnknownMember: a member the contract does not define, outside extensions.
var UnknownMember = &lint.Rule{
	ID: "AOP2-ENVELOPE-007", Title: "unknown member outside extensions", Protocol: ID, Severity: lint.Warning,
	Spec: "aop2 §3 Extensions Mechanism; §1.1 Compatibility",
	Doc: "The contract's core objects keep a closed set of members; vendor data goes in an extensions object under x_-prefixed keys (§3). " +
		"A member the contract does not define is reported as a warning, not an error: §1.1 tells orchestrators to fall back conservatively when unknown fields appear (a newer 2.x may add them). " +
		"The upstream Python implementation rejected them (additionalProperties false).",
	Bad:  `{"aop_version": "2.0.2-C", "message_type": "TASK", "extra_forbidden_field": "should_fail", "session": {...}, "target": {...}, "task": {...}}`,
	Good: `{"aop_version": "2.0.2-C", "message_type": "TASK", "session": {...}, "target": {...}, "task": {...}, "extensions": {"x_extra_field": "kept"}}`,
	Run:  checkUnknownMembers,
}

func init() { lint.Register(Schema, UnknownMember) }

// schemaDocs are the parsed schema files of schemas/aop2, for walking.
var (
	docsOnce sync.Once
	docs     map[string]map[string]any // file name → schema
)

func loadDocs() {
	docs = map[string]map[string]any{}
	entries, _ := fs.ReadDir(schemas.FS, "aop2")
	for _, e := range entries {
		data, err := fs.ReadFile(schemas.FS, path.Join("aop2", e.Name()))
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(data, &m) == nil {
			docs[e.Name()] = m
		}
	}
}

// resolve follows $ref (within the directory) and returns the file and the schema.
func resolve(file string, s map[string]any) (string, map[string]any) {
	for i := 0; i < 16 && s != nil; i++ {
		ref, ok := s["$ref"].(string)
		if !ok {
			return file, s
		}
		target, frag, _ := strings.Cut(ref, "#")
		if target != "" {
			file = target
		}
		s = docs[file]
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			if tok == "" || s == nil {
				continue
			}
			s, _ = s[tok].(map[string]any)
		}
	}
	return file, s
}

// objectBranch picks the object-accepting schema among anyOf/oneOf branches.
func objectBranch(file string, s map[string]any) (string, map[string]any) {
	file, s = resolve(file, s)
	for _, key := range []string{"anyOf", "oneOf"} {
		if branches, ok := s[key].([]any); ok {
			for _, b := range branches {
				bm, _ := b.(map[string]any)
				bf, bs := resolve(file, bm)
				if acceptsObject(bs) {
					return bf, bs
				}
			}
			return file, nil
		}
	}
	return file, s
}

func acceptsObject(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		for _, v := range t {
			if v == "object" {
				return true
			}
		}
		return false
	}
	_, hasProps := s["properties"]
	_, hasAll := s["allOf"]
	return hasProps || hasAll
}

func arrayItems(file string, s map[string]any) (string, map[string]any) {
	file, s = resolve(file, s)
	for _, key := range []string{"anyOf", "oneOf"} {
		if branches, ok := s[key].([]any); ok {
			for _, b := range branches {
				bm, _ := b.(map[string]any)
				bf, bs := resolve(file, bm)
				if it, ok := bs["items"].(map[string]any); ok {
					return bf, it
				}
			}
		}
	}
	it, _ := s["items"].(map[string]any)
	return file, it
}

// known collects the properties of an object schema and its allOf parts; open is
// true when the schema says additionalProperties: true.
func known(file string, s map[string]any) (props map[string]struct {
	file string
	s    map[string]any
}, open bool) {
	props = map[string]struct {
		file string
		s    map[string]any
	}{}
	var add func(file string, s map[string]any, depth int)
	add = func(file string, s map[string]any, depth int) {
		file, s = resolve(file, s)
		if s == nil || depth > 8 {
			return
		}
		if ap, ok := s["additionalProperties"].(bool); ok && ap {
			open = true
		}
		if ps, ok := s["properties"].(map[string]any); ok {
			for k, v := range ps {
				vm, _ := v.(map[string]any)
				if prev, dup := props[k]; dup && len(prev.s) > len(vm) {
					continue // keep the richer definition (allOf base vs. a const override)
				}
				props[k] = struct {
					file string
					s    map[string]any
				}{file, vm}
			}
		}
		if all, ok := s["allOf"].([]any); ok {
			for _, a := range all {
				am, _ := a.(map[string]any)
				add(file, am, depth+1)
			}
		}
	}
	add(file, s, 0)
	return props, open
}

func checkUnknownMembers(p *lint.Pass) {
	file := SchemaFile(p.Msg.Kind)
	if file == "" || p.Msg.Kind == KindEvent || p.Msg.Root == nil {
		return
	}
	docsOnce.Do(loadDocs)
	name := path.Base(file)
	walkUnknown(p, name, docs[name], p.Msg.Root, "", 0)
}

func walkUnknown(p *lint.Pass, file string, s map[string]any, n *jsonread.Node, at string, depth int) {
	if s == nil || n == nil || depth > 32 {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		file, s = objectBranch(file, s)
		if s == nil {
			return
		}
		props, open := known(file, s)
		if len(props) == 0 {
			return
		}
		for _, m := range n.Members {
			mp := ptr(at, m.Key)
			if ps, ok := props[m.Key]; ok {
				if m.Key != "extensions" {
					walkUnknown(p, ps.file, ps.s, m.Value, mp, depth+1)
				}
				continue
			}
			if open || (at == "" && m.Key == "task_status" && p.Msg.Kind == KindTask) {
				continue // task_status in a TASK is AOP2-ENVELOPE-003's
			}
			p.Reportf(mp, "unknown member %q: the contract does not define it here; put vendor data in extensions under an x_ key, such as \"extensions\": {\"x_%s\": ...} (§3). Kept as a warning: §1.1 falls back conservatively on unknown fields (the upstream Python schema rejected them)", m.Key, strings.TrimPrefix(m.Key, "x_"))
		}
	case jsonread.Array:
		f, it := arrayItems(file, s)
		if it == nil {
			return
		}
		for i, item := range n.Items {
			walkUnknown(p, f, it, item, ptr(at, i), depth+1)
		}
	}
}
