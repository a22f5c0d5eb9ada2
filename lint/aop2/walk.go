package aop2

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema/generated"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// Four single-message rules look through the whole tree: unknown members
// (AOP2-ENVELOPE-007, by the generated member shapes), fractional numbers the
// upstream dialect refuses (AOP2-DIALECT-001), extensions keys (AOP2-EXT-001)
// and error codes (AOP2-CODE-001). They visit the same nodes, so one walk does
// the four: the first of the rules to run over a message walks its tree once
// and keeps what each rule is to report in Message.Parsed (unused by JSON
// protocols), where the others find it. Each rule still reports its own
// findings with its own pass, in the walk's (document) order, as its own walk
// did.

// walker indexes the rules of the walk.
type walker int

const (
	byUnknown walker = iota
	byFractional
	byExtensions
	byErrorCodes
	walkers
)

// finding is a diagnostic the walk found for one rule.
type finding struct {
	sev     lint.Severity // when not the rule's own
	ruleSev bool          // the rule's own severity
	pointer string
	message string
	claim   bool
}

// walked is what the walk of one message found.
type walked struct {
	m      *lint.Message
	of     [walkers][]finding
	unread [walkers]bool // rules yet to report their findings
}

// walkedClean marks a message whose walk found nothing: no allocation for it.
var walkedClean = &walked{}

// report reports the findings of rule w over p's message, walking its tree
// first if no rule of the walk did yet.
func report(p *lint.Pass, w walker) {
	m := p.Msg
	if m.Root == nil {
		return
	}
	var found *walked
	switch prev := m.Parsed.(type) {
	case *walked:
		if prev == walkedClean || prev.m == m {
			found = prev
		}
	case nil:
	default:
		// Parsed holds something else: walk without keeping the result.
	}
	if found == nil {
		found = walkTree(m)
		if m.Parsed == nil {
			m.Parsed = found
		}
	}
	if found != walkedClean {
		found.unread[w] = false
		if found.unread == ([walkers]bool{}) && m.Parsed == found {
			m.Parsed = nil // all four reported: nothing of the walk outlives them
		}
	}
	for _, f := range found.of[w] {
		if f.claim {
			p.Claim(f.pointer)
		}
		sev := f.sev
		if f.ruleSev {
			sev = p.Rule.Severity
		}
		p.ReportSevf(sev, f.pointer, "%s", f.message)
	}
}

// maxWalkDepth bounds the nesting the walk follows (the deepest of the rules').
const maxWalkDepth = 64

// maxFractionalDepth bounds the nesting the fractional-number rule follows.
const maxFractionalDepth = 16

// walk is the state of one walk over a tree.
type walk struct {
	msg   *lint.Message
	found *walked
	// path[d] is the index of the path's token at depth d in its node's
	// Members (an object) or Items (an array): the pointer is spelled from the
	// root by them (pointer) only for a finding. Indexes, not the keys: the
	// walk stores one word per token it descends through, and a new walk
	// clears 264 bytes, not the 1.6 kB of a path of strings.
	path [maxWalkDepth + 2]int32
}

func walkTree(m *lint.Message) *walked {
	w := &walk{msg: m, found: walkedClean}
	sh, frac := walkOf(m.Kind)
	w.node(m.Root, 0, sh, frac, true)
	return w.found
}

// walkOf is how the walk starts for a message of kind: its member shape for the
// unknown-member rule (the members the contract defines; nil: not looked at)
// and whether the fractional-number rule looks at it (walkOfKind).
func walkOf(kind string) (sh *generated.Shape, frac bool) {
	// The kinds Detect names, their answers made once (TestWalkOf holds them
	// to walkOfKind): not SchemaFile's memo and generated.Members' search of
	// the schema files for each message.
	i := -1
	switch {
	case kind == KindTask:
		i = 0
	case kind == KindResponse:
		i = 1
	case len(kind) > len(KindEvent+":") && kind[:len(KindEvent+":")] == KindEvent+":":
		if e := eventIndex(kind[len(KindEvent+":"):]); e >= 0 {
			i = 2 + e
		}
	}
	if i < 0 {
		return walkOfKind(kind)
	}
	return walkStarts[i].sh, walkStarts[i].frac
}

// walkKinds are the kinds of walkOf's indexes: TASK, RESPONSE and the EVENT
// kinds by eventIndex.
var walkKinds = append([]string{KindTask, KindResponse}, eventKinds...)

// walkStarts are walkOfKind's answers for walkKinds.
var walkStarts = func() []walkStart {
	out := make([]walkStart, len(walkKinds))
	for i, k := range walkKinds {
		out[i].sh, out[i].frac = walkOfKind(k)
	}
	return out
}()

// walkStart is an answer of walkOf.
type walkStart struct {
	sh   *generated.Shape
	frac bool
}

// walkOfKind is walkOf for any kind.
func walkOfKind(kind string) (sh *generated.Shape, frac bool) {
	if file := SchemaFile(kind); file != "" && kind != KindEvent {
		sh = generated.Members(file)
	}
	return sh, kind == KindTask || kind == KindResponse || kind == kindHeartbeat
}

// add keeps a finding of rule r at the first depth tokens of the path, with the
// rule's own severity.
func (w *walk) add(r walker, depth int, claim bool, format string, args ...any) {
	w.addSev(r, depth, finding{ruleSev: true, claim: claim}, format, args...)
}

// addSev keeps f, a finding of rule r at the first depth tokens of the path.
func (w *walk) addSev(r walker, depth int, f finding, format string, args ...any) {
	if w.found == walkedClean {
		w.found = &walked{m: w.msg, unread: [walkers]bool{true, true, true, true}}
	}
	f.pointer, f.message = w.pointer(depth), fmt.Sprintf(format, args...)
	w.found.of[r] = append(w.found.of[r], f)
}

// pointer spells the JSON Pointer of the first n tokens of the path.
func (w *walk) pointer(n int) string {
	var b []byte
	at := w.msg.Root
	for _, i := range w.path[:n] {
		b = append(b, '/')
		if at.Kind == jsonread.Object {
			b = appendToken(b, at.Members[i].Key)
			at = at.Members[i].Value
		} else {
			b = strconv.AppendInt(b, int64(i), 10)
			at = at.Items[i]
		}
	}
	return string(b)
}

// node walks n, at the first depth tokens of the path. sh is its member shape
// for the unknown-member rule (nil: not looked at); frac and codes say whether
// the fractional-number and error-code rules look at it. The extensions rule
// looks at every node outside extensions.
func (w *walk) node(n *jsonread.Node, depth int, sh *generated.Shape, frac, codes bool) {
	if n == nil || depth > maxWalkDepth {
		return
	}
	if depth > 32 {
		sh = nil
	}
	if depth > maxFractionalDepth {
		frac = false
	}
	switch n.Kind {
	case jsonread.Object:
		if sh != nil && !sh.Object {
			sh = nil
		}
		// The path's token at depth is set only where the walk looks further
		// or finds something: most members are neither.
		var find func(string) int
		if sh != nil {
			find = sh.Find()
		}
		for j, m := range n.Members {
			v := m.Value
			var msh *generated.Shape // the member's shape, to walk it by
			if sh != nil {
				i := find(m.Key)
				switch {
				case i >= 0:
					msh = sh.Props[i].Shape
				case sh.Open || (depth == 0 && m.Key == "task_status" && w.msg.Kind == KindTask):
					// task_status in a TASK is AOP2-ENVELOPE-003's
				default:
					w.path[depth] = int32(j)
					w.unknown(m.Key, depth+1)
				}
			}
			mcodes := codes
			if len(m.Key) == len("extensions") { // and of "error_code"
				switch {
				case m.Key == aop2spec.Extensions:
					w.path[depth] = int32(j)
					w.extensions(v, depth+1)
					continue // the values are vendor data
				case codes && m.Key == "error_code" && v != nil:
					w.path[depth] = int32(j)
					w.errorCode(v, depth+1)
					mcodes = false // an error code is not looked into for more
				}
			}
			if v == nil {
				continue
			}
			mfrac := frac
			if frac && upstreamInteger(m.Key) {
				w.path[depth] = int32(j)
				w.fractional(v, depth+1)
				if v.Kind == jsonread.Array {
					for i, it := range v.Items {
						w.path[depth+1] = int32(i)
						w.fractional(it, depth+2)
					}
				}
				mfrac = false // not looked into
			}
			if v.Kind == jsonread.Object || v.Kind == jsonread.Array {
				w.path[depth] = int32(j)
				w.node(v, depth+1, msh, mfrac, mcodes)
			}
		}
	case jsonread.Array:
		var ish *generated.Shape
		if sh != nil {
			ish = sh.Items
		}
		for i, it := range n.Items {
			if it != nil && (it.Kind == jsonread.Object || it.Kind == jsonread.Array) {
				w.path[depth] = int32(i)
				w.node(it, depth+1, ish, frac, codes)
			}
		}
	}
}

// unknown reports the member key, at the first depth tokens, that its object's
// shape does not define.
func (w *walk) unknown(key string, depth int) {
	w.add(byUnknown, depth, false, "unknown member %q: the contract does not define it here; put vendor data in extensions under an x_ key, such as \"extensions\": {\"x_%s\": ...} (§3). Kept as a warning: §1.1 falls back conservatively on unknown fields (the upstream Python schema rejected them)", key, strings.TrimPrefix(key, "x_"))
}

// extensions checks the keys of an extensions member's value v, at the first
// depth tokens.
func (w *walk) extensions(v *jsonread.Node, depth int) {
	if v == nil || v.Kind != jsonread.Object {
		return
	}
	for i, x := range v.Members {
		if !aop2spec.ExtensionKeyOK(x.Key) {
			w.path[depth] = int32(i)
			w.add(byExtensions, depth+1, false, "extensions key %q must start with \"x_\", such as %q (§3)", x.Key, "x_"+x.Key)
		}
	}
}

// errorCode checks an error_code member's value, at the first depth tokens.
func (w *walk) errorCode(v *jsonread.Node, depth int) {
	switch {
	case v.Kind == jsonread.Null || (v.IsString() && contains(errorCodes, v.Str)):
	case !v.IsString():
		w.addSev(byErrorCodes, depth, finding{sev: lint.Error, claim: true}, "error_code %s is not a string; use one of %s (E_UNKNOWN for everything else)", describe(v), quoteList(errorCodes))
	default:
		w.add(byErrorCodes, depth, true, "error_code %s is not in the §12 taxonomy: not required by the spec (§12 reads any other code as E_UNKNOWN), but use one of %s", describe(v), quoteList(errorCodes))
	}
}

// fractional reports n, at the first depth tokens, if it is a fractional number.
func (w *walk) fractional(n *jsonread.Node, depth int) {
	if n == nil || n.Kind != jsonread.Number {
		return
	}
	if _, isInt := n.Int(); isInt {
		return
	}
	if f, ok := n.Float(); ok && f == float64(int64(f)) {
		return // 30.0: an integer value
	}
	at := w.pointer(depth)
	w.add(byFractional, depth, false, "%s is %s: valid (the contract allows any number), but %s, which wanted an integer", dotted(at), n.Str, upstreamDialect)
}
