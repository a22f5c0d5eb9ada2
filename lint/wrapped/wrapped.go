// Package wrapped checks the messages an AOS protocols/MCP or protocols/A2A request
// wraps against the official JSON Schemas of MCP and A2A (package schemas/wrapped),
// every published revision aoplint carries: a message is valid when one revision
// that defines its method (or object) accepts it, and each finding names the
// revision that judged it.
//
// Nothing is read or compiled before the first wrapped message: each revision's
// method index is built on first use, and each definition is compiled once, when a
// message first needs it.
package wrapped

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/lint/schema/draft7"
	schemafs "github.com/aopkit/aopkit/schemas/wrapped"
)

// Finding is one thing wrong (or worth saying) about a wrapped message. Pointer is
// relative to the wrapped message ("" is the message itself).
type Finding struct {
	Pointer  string
	Severity lint.Severity
	Message  string
}

// Revision is one published revision of a protocol's official schema.
type Revision struct {
	Name string // "2025-11-25", "v0.3.0"
	file string // within schemas/wrapped

	once    sync.Once
	err     error
	defsKey string            // "definitions" (draft-07) or "$defs" (2020-12)
	defs    map[string]bool   // every definition's name
	methods map[string]string // method -> the definition of its request or notification
	set     *draft7.Set       // holds the document

	compiled schema.Memo[*draft7.Schema] // definition name → compiled
}

// Revisions of each protocol, newest first.
var (
	MCP = []*Revision{
		{Name: "2025-11-25", file: "mcp/2025-11-25.schema.json"},
		{Name: "2025-06-18", file: "mcp/2025-06-18.schema.json"},
	}
	A2A = []*Revision{
		{Name: "v0.3.0", file: "a2a/v0.3.0.schema.json"},
		{Name: "v0.2.5", file: "a2a/v0.2.5.schema.json"},
	}
)

// RevisionNames lists the names of revs, newest first.
func RevisionNames(revs []*Revision) []string {
	out := make([]string, len(revs))
	for i, r := range revs {
		out[i] = r.Name
	}
	return out
}

const baseURL = "https://aopkit.dev/schemas/wrapped/"

func (r *Revision) load() error {
	r.once.Do(func() {
		data, err := fs.ReadFile(schemafs.FS, r.file)
		if err != nil {
			r.err = err
			return
		}
		v, err := draft7.Decode(data)
		doc, _ := v.(map[string]any)
		if err != nil || doc == nil {
			r.err = fmt.Errorf("%s: not a schema document: %v", r.file, err)
			return
		}
		r.defsKey = "definitions"
		defs, _ := doc["definitions"].(map[string]any)
		if defs == nil {
			r.defsKey = "$defs"
			defs, _ = doc["$defs"].(map[string]any)
		}
		r.defs = map[string]bool{}
		r.methods = map[string]string{}
		for name, d := range defs {
			r.defs[name] = true
			dm, _ := d.(map[string]any)
			props, _ := dm["properties"].(map[string]any)
			method, _ := props["method"].(map[string]any)
			if c, ok := method["const"].(string); ok {
				r.methods[c] = name
			}
		}
		// The 2020-12 "$schema" of MCP 2025-11-25 is dropped: the file uses only
		// keywords draft-07 has (with "$defs" reached by JSON Pointer), and the
		// validator must not try to fetch a meta-schema.
		delete(doc, "$schema")
		r.set = draft7.NewSet()
		r.set.AddValue(baseURL+r.file, doc)
	})
	return r.err
}

// Method returns the definition of method's request or notification ("" when this
// revision does not define the method).
func (r *Revision) Method(method string) string {
	if r.load() != nil {
		return ""
	}
	return r.methods[method]
}

// Defines reports whether the revision has a definition called def.
func (r *Revision) Defines(def string) bool {
	return r.load() == nil && r.defs[def]
}

func (r *Revision) def(name string) (*draft7.Schema, error) {
	if err := r.load(); err != nil {
		return nil, err
	}
	if !r.defs[name] {
		return nil, fmt.Errorf("%s defines no %s", r.file, name)
	}
	// Each definition is compiled as a root reached by reference into the
	// document the set holds (parsed once per revision).
	return r.compiled.Get(name, func() (*draft7.Schema, error) {
		return r.set.Compile(baseURL + r.file + "#/" + r.defsKey + "/" + name)
	})
}

// Validate checks v, a message made a value (jsonread.Node.Interface), against
// the named definition of the revision and returns the violations, the
// anyOf/oneOf summaries dropped where detailed errors exist.
func (r *Revision) Validate(def string, v any) ([]schema.Error, error) {
	s, err := r.def(def)
	if err != nil {
		return nil, err
	}
	return dropSummaries(schema.Check(s, v)), nil
}

// dropSummaries removes "must validate at least one schema (anyOf)" lines when
// the errors of the closest branch, which draft7 adds as gojsonschema does, say what is wrong.
func dropSummaries(es []schema.Error) []schema.Error {
	detailed := false
	for _, e := range es {
		if !isSummary(e) {
			detailed = true
		}
	}
	if !detailed {
		return es
	}
	out := es[:0:0]
	for _, e := range es {
		if !isSummary(e) {
			out = append(out, e)
		}
	}
	return out
}

func isSummary(e schema.Error) bool {
	return e.Type == "number_any_of" || e.Type == "number_one_of" || e.Type == "number_all_of"
}

// judgement is one revision's verdict on a message checked against some definitions.
type judgement struct {
	rev  *Revision
	defs []string // what the message was checked against
	errs []schema.Error
}

// judge checks v against defs (all of them) in each revision that defines all of
// them, and returns the verdicts, newest revision first. ok reports whether one
// revision accepted v.
func judge(revs []*Revision, v *jsonread.Node, defs func(*Revision) []string) (js []judgement, ok bool, err error) {
	var iv any // v.Interface(), made once for every definition and revision
	for _, r := range revs {
		ds := defs(r)
		if len(ds) == 0 {
			continue
		}
		if iv == nil {
			iv = v.Interface()
		}
		j := judgement{rev: r, defs: ds}
		for _, d := range ds {
			es, err := r.Validate(d, iv)
			if err != nil {
				return nil, false, err
			}
			j.errs = append(j.errs, es...)
		}
		if len(j.errs) == 0 {
			return nil, true, nil
		}
		js = append(js, j)
	}
	return js, false, nil
}

// report turns rejections into findings: the errors of the revision that found
// the fewest (the newest on a tie), each naming it and the other revisions that
// also rejected the message.
func report(proto string, js []judgement) []Finding {
	if len(js) == 0 {
		return nil
	}
	best := js[0]
	for _, j := range js[1:] {
		if len(j.errs) < len(best.errs) {
			best = j
		}
	}
	var others []string
	for _, j := range js {
		if j.rev != best.rev {
			others = append(others, j.rev.Name)
		}
	}
	also := ""
	if len(others) > 0 {
		also = fmt.Sprintf(" (%s %s rejects it too)", proto, strings.Join(others, ", "))
	}
	seen := map[string]bool{}
	var out []Finding
	for _, e := range best.errs {
		k := e.Pointer + "\x00" + e.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, Finding{
			Pointer:  e.Pointer,
			Severity: lint.Error,
			Message:  fmt.Sprintf("%s %s %s: %s%s", proto, best.rev.Name, strings.Join(best.defs, "+"), e.Message, also),
		})
	}
	return out
}

// verdict judges msg in revs against defs and appends the findings to out.
func verdict(proto string, revs []*Revision, msg *jsonread.Node, defs func(*Revision) []string, out []Finding) ([]Finding, error) {
	js, ok, err := judge(revs, msg, defs)
	if err != nil || ok {
		return out, err
	}
	return append(out, report(proto, js)...), nil
}

// unknownMethod: a method no carried revision defines is a legal extension point
// of both protocols, so a warning; one of the other protocol is named as such.
func unknownMethod(proto string, revs []*Revision, method, other string, otherKnows bool) Finding {
	msg := fmt.Sprintf("%q is not a method of %s %s: custom methods are an %s extension point, so this is not an error, but check the spelling", method, proto, strings.Join(RevisionNames(revs), " or "), proto)
	if otherKnows {
		msg = fmt.Sprintf("%q is an %s method, not one of %s %s: wrap %s messages in protocols/%s", method, other, proto, strings.Join(RevisionNames(revs), " or "), other, other)
	}
	return Finding{Pointer: "/method", Severity: lint.Warning, Message: msg}
}

// bothResultAndError: a JSON-RPC response sets result or error, never both. The
// official schemas cannot say it (their response unions are open anyOfs: a
// message with both members matches the error branch), so aoplint does.
func bothResultAndError(proto, also string, msg *jsonread.Node) []Finding {
	if msg.Has("method") || !msg.Has("result") || !msg.Has("error") {
		return nil
	}
	return []Finding{{Pointer: "", Severity: lint.Error,
		Message: fmt.Sprintf("the wrapped %s response sets both result and error: a response sets exactly one of them (JSON-RPC 2.0 §5: \"Either the result member or error member MUST be included, but both members MUST NOT be included\"%s)", proto, also)}}
}

func kindOf(n *jsonread.Node) string {
	switch n.Kind {
	case jsonread.Object:
		return "an object"
	case jsonread.Array:
		return "an array"
	case jsonread.String:
		return "a string"
	case jsonread.Number:
		return "a number"
	case jsonread.Bool:
		return "a boolean"
	default:
		return "null"
	}
}

func internalError(proto string, err error) []Finding {
	return []Finding{{Severity: lint.Error, Message: fmt.Sprintf("aoplint could not load the official %s schema: %v", proto, err)}}
}
