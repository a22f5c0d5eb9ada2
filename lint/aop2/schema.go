package aop2

import (
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/schema"
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

func init() { lint.Register(Schema) }

// The schema files of schemas/aop2 compiled into shapes: for each object, the
// members the contract defines. Made on first use, per file, so a run that sees
// only RESPONSEs reads only the RESPONSE schema and what it refers to.
var (
	shapesMu sync.Mutex
	shapes   = map[string]*shape{} // kind's schema file → its shape
)

// shape is what the walker needs of a schema: an object's known members (open: any
// member is fine) and an array's items.
type shape struct {
	props map[string]*shape
	open  bool
	items *shape
}

// doc returns the schema file name of schemas/aop2 (nil: unreadable), decoded
// once per process by lint/schema, which the validators share.
func doc(name string) map[string]any {
	v, _ := schema.Doc(path.Join("aop2", name))
	m, _ := v.(map[string]any)
	return m
}

// shapeOf returns the shape of a kind's schema file, compiling it on first use.
func shapeOf(name string) *shape {
	shapesMu.Lock()
	defer shapesMu.Unlock()
	if sh, ok := shapes[name]; ok {
		return sh
	}
	var sh *shape
	if d := doc(name); d != nil {
		sh = compileShape(name, d, 0)
	}
	shapes[name] = sh
	return sh
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
		s = doc(file)
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			if tok == "" || s == nil {
				continue
			}
			s, _ = s[tok].(map[string]any)
		}
	}
	return file, s
}

// compileShape turns a schema into a shape (nil: nothing to check below it).
func compileShape(file string, s map[string]any, depth int) *shape {
	file, s = resolve(file, s)
	if s == nil || depth > 24 {
		return nil
	}
	sh := &shape{}
	found := false
	var add func(file string, s map[string]any, d int)
	add = func(file string, s map[string]any, d int) {
		file, s = resolve(file, s)
		if s == nil || d > 8 {
			return
		}
		if ap, ok := s["additionalProperties"].(bool); ok && ap {
			sh.open = true
		}
		if ps, ok := s["properties"].(map[string]any); ok {
			found = true
			if sh.props == nil {
				sh.props = map[string]*shape{}
			}
			for k, v := range ps {
				vm, _ := v.(map[string]any)
				if _, dup := sh.props[k]; !dup || sh.props[k] == nil {
					sh.props[k] = compileShape(file, vm, depth+1)
				}
			}
		}
		if it, ok := s["items"].(map[string]any); ok {
			found = true
			sh.items = compileShape(file, it, depth+1)
		}
		for _, key := range []string{"allOf", "anyOf", "oneOf"} {
			if parts, ok := s[key].([]any); ok {
				for _, a := range parts {
					am, _ := a.(map[string]any)
					add(file, am, d+1)
				}
			}
		}
	}
	add(file, s, 0)
	if !found {
		return nil
	}
	return sh
}

func checkUnknownMembers(p *lint.Pass) {
	file := SchemaFile(p.Msg.Kind)
	if file == "" || p.Msg.Kind == KindEvent || p.Msg.Root == nil {
		return
	}
	walkUnknown(p, shapeOf(path.Base(file)), p.Msg.Root, make(ptrPath, 0, 16))
}

func walkUnknown(p *lint.Pass, sh *shape, n *jsonread.Node, at ptrPath) {
	if sh == nil || n == nil || len(at) > 32 {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		if sh.props == nil {
			return
		}
		for _, m := range n.Members {
			if ps, ok := sh.props[m.Key]; ok {
				if m.Key != "extensions" && ps != nil && (m.Value.Kind == jsonread.Object || m.Value.Kind == jsonread.Array) {
					walkUnknown(p, ps, m.Value, append(at, m.Key))
				}
				continue
			}
			if sh.open || (len(at) == 0 && m.Key == "task_status" && p.Msg.Kind == KindTask) {
				continue // task_status in a TASK is AOP2-ENVELOPE-003's
			}
			p.Reportf(append(at, m.Key).String(), "unknown member %q: the contract does not define it here; put vendor data in extensions under an x_ key, such as \"extensions\": {\"x_%s\": ...} (§3). Kept as a warning: §1.1 falls back conservatively on unknown fields (the upstream Python schema rejected them)", m.Key, strings.TrimPrefix(m.Key, "x_"))
		}
	case jsonread.Array:
		if sh.items == nil {
			return
		}
		for i, item := range n.Items {
			walkUnknown(p, sh.items, item, append(at, strconv.Itoa(i)))
		}
	}
}
