package aop2

// The walk of walk.go does the work of four walks, one per rule, which it
// replaced (issue 11). Those walks are kept here, renamed ...Ref, as the
// reference: FuzzTreeWalk requires the very diagnostics and claims of each
// rule from both.

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema/generated"
)

// walkRefs are the reference Runs of the walk's rules.
var walkRefs = map[*lint.Rule]func(*lint.Pass){}

func init() {
	walkRefs[ErrorCode] = checkErrorCodesRef
	walkRefs[ExtensionKey] = checkExtensionKeysRef
	walkRefs[UnknownMember] = checkUnknownMembersRef
	walkRefs[UpstreamRefuses] = checkUpstreamRefusesRef
}

func FuzzTreeWalk(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "aop2", dir, "*"))
		for _, file := range files {
			if strings.HasSuffix(file, ".golden") {
				continue
			}
			data, err := os.ReadFile(file)
			if err != nil || len(data) > 16<<10 {
				continue
			}
			for _, line := range strings.Split(string(data), "\n") {
				if strings.TrimSpace(line) != "" {
					f.Add(line)
				}
			}
		}
	}
	f.Add(`{"aop_version":"2.0.2-C","message_type":"TASK","task":{"task_id":"T","x":{"error_code":{"timeout_seconds":1.5,"error_code":"NO","extensions":{"k":1}}}},"execution_policy":{"timeout_seconds":2.5,"retry_backoff_seconds":[1,2.5,{"a":1}]},"extensions":{"bad":{"error_code":"X"}}}`)
	f.Add(`{"aop_version":"2.0.2-C","message_type":"RESPONSE","error_details":{"error_code":7},"timing":{"duration_seconds":1.25},"task_status":{"state":"COMPLETED","extra":[{"extensions":{"y":1}}]},"a~/b":{"error_code":"E_UNKNOWN"}}`)
	f.Add(`{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","progress_percentage":12.5,"deep":[[[[[[[[[[[[[[[[[[{"timeout_seconds":0.5}]]]]]]]]]]]]]]]]]]}`)
	f.Fuzz(func(t *testing.T, s string) {
		root, _, err := jsonread.Parse([]byte(s))
		if err != nil || root == nil {
			return
		}
		kind, dialect, _ := Detect(root, "")
		msg := func() *lint.Message {
			return &lint.Message{Path: "f.jsonl", Protocol: ID, Kind: kind, Dialect: dialect, Root: root, Raw: []byte(s), Pos: lint.NewLineIndex([]byte(s), 1, 1)}
		}
		m := msg() // one message for the four rules, as the driver runs them
		for _, r := range []*lint.Rule{ErrorCode, UpstreamRefuses, UnknownMember, ExtensionKey} {
			want, got := lint.NewPass(r, msg()), lint.NewPass(r, m)
			walkRefs[r](want)
			r.Run(got)
			if !slices.Equal(render(want.Diagnostics()), render(got.Diagnostics())) || !slices.Equal(want.Claimed(), got.Claimed()) {
				t.Fatalf("%s over %s:\nthe walk: %q claims %q\nits own walk: %q claims %q", r.ID, s, render(got.Diagnostics()), got.Claimed(), render(want.Diagnostics()), want.Claimed())
			}
		}
	})
}

func render(ds []lint.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, strconv.Itoa(d.Line)+":"+strconv.Itoa(d.Column)+" "+d.Severity.String()+" "+d.Pointer+" "+d.Message)
	}
	return out
}

func checkErrorCodesRef(p *lint.Pass) {
	walkErrorCodesRef(p, p.Msg.Root, make(ptrPath, 0, 16))
}

func walkErrorCodesRef(p *lint.Pass, n *jsonread.Node, at ptrPath) {
	if n == nil || len(at) > 64 {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		for _, m := range n.Members {
			switch {
			case m.Key == "extensions":
			case m.Key == "error_code":
				mp := append(at, m.Key).String()
				switch {
				case m.Value.Kind == jsonread.Null || (m.Value.IsString() && contains(errorCodes, m.Value.Str)):
				case !m.Value.IsString():
					p.Claim(mp)
					p.ReportSevf(lint.Error, mp, "error_code %s is not a string; use one of %s (E_UNKNOWN for everything else)", describe(m.Value), quoteList(errorCodes))
				default:
					p.Claim(mp)
					p.Reportf(mp, "error_code %s is not in the §12 taxonomy: not required by the spec (§12 reads any other code as E_UNKNOWN), but use one of %s", describe(m.Value), quoteList(errorCodes))
				}
			case m.Value.Kind == jsonread.Object || m.Value.Kind == jsonread.Array:
				walkErrorCodesRef(p, m.Value, append(at, m.Key))
			}
		}
	case jsonread.Array:
		for i, it := range n.Items {
			if it.Kind == jsonread.Object || it.Kind == jsonread.Array {
				walkErrorCodesRef(p, it, append(at, strconv.Itoa(i)))
			}
		}
	}
}

func checkExtensionKeysRef(p *lint.Pass) {
	walkExtensionsRef(p, p.Msg.Root, make(ptrPath, 0, 16))
}

// walkExtensionsRef finds every extensions object outside vendor data.
func walkExtensionsRef(p *lint.Pass, n *jsonread.Node, at ptrPath) {
	if n == nil || len(at) > 64 {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		for _, m := range n.Members {
			if m.Key == "extensions" {
				if m.Value.Kind == jsonread.Object {
					for _, x := range m.Value.Members {
						if !strings.HasPrefix(x.Key, "x_") {
							p.Reportf(append(at, m.Key, x.Key).String(), "extensions key %q must start with \"x_\", such as %q (§3)", x.Key, "x_"+x.Key)
						}
					}
				}
				continue // the values are vendor data
			}
			if m.Value.Kind == jsonread.Object || m.Value.Kind == jsonread.Array {
				walkExtensionsRef(p, m.Value, append(at, m.Key))
			}
		}
	case jsonread.Array:
		for i, it := range n.Items {
			if it.Kind == jsonread.Object || it.Kind == jsonread.Array {
				walkExtensionsRef(p, it, append(at, strconv.Itoa(i)))
			}
		}
	}
}

func checkUnknownMembersRef(p *lint.Pass) {
	file := SchemaFile(p.Msg.Kind)
	if file == "" || p.Msg.Kind == KindEvent || p.Msg.Root == nil {
		return
	}
	// The members the contract defines, computed from the schema files by
	// internal/schemagen (no schema is decoded at run time for this).
	walkUnknownRef(p, generated.Members(file), p.Msg.Root, make(ptrPath, 0, 16))
}

func walkUnknownRef(p *lint.Pass, sh *generated.Shape, n *jsonread.Node, at ptrPath) {
	if sh == nil || n == nil || len(at) > 32 {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		if !sh.Object {
			return
		}
		for _, m := range n.Members {
			if ps, ok := sh.Member(m.Key); ok {
				if m.Key != "extensions" && ps != nil && (m.Value.Kind == jsonread.Object || m.Value.Kind == jsonread.Array) {
					walkUnknownRef(p, ps, m.Value, append(at, m.Key))
				}
				continue
			}
			if sh.Open || (len(at) == 0 && m.Key == "task_status" && p.Msg.Kind == KindTask) {
				continue // task_status in a TASK is AOP2-ENVELOPE-003's
			}
			p.Reportf(append(at, m.Key).String(), "unknown member %q: the contract does not define it here; put vendor data in extensions under an x_ key, such as \"extensions\": {\"x_%s\": ...} (§3). Kept as a warning: §1.1 falls back conservatively on unknown fields (the upstream Python schema rejected them)", m.Key, strings.TrimPrefix(m.Key, "x_"))
		}
	case jsonread.Array:
		if sh.Items == nil {
			return
		}
		for i, item := range n.Items {
			walkUnknownRef(p, sh.Items, item, append(at, strconv.Itoa(i)))
		}
	}
}

func checkUpstreamRefusesRef(p *lint.Pass) {
	for _, at := range upstreamRequired(p.Msg.Kind) {
		parent := at[:strings.LastIndexByte(at, '/')]
		if parent != "" && p.Node(parent) == nil {
			continue // the parent's absence is reported (or allowed) on its own
		}
		if n := p.Node(at); n == nil || n.Kind == jsonread.Null {
			p.Reportf(at, "%s is missing: valid (the contract does not require it), but %s", dotted(at), upstreamDialect)
		}
	}
	if p.Msg.Kind == KindTask || p.Msg.Kind == KindResponse || p.Msg.Kind == kindHeartbeat {
		var buf [128]byte
		walkFractionalRef(p, p.Msg.Root, buf[:0], 0)
	}
}

// walkFractionalRef reports fractional numbers in the members upstream wanted as
// integers. at is the pointer of n, built in one buffer as the walk descends and
// turned into a string only for a report.
func walkFractionalRef(p *lint.Pass, n *jsonread.Node, at []byte, depth int) {
	if n == nil || depth > 16 {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		for _, m := range n.Members {
			if m.Key == "extensions" || m.Value == nil {
				continue
			}
			switch m.Value.Kind {
			case jsonread.Number, jsonread.Array, jsonread.Object:
			default:
				continue // a string, boolean or null: nothing fractional in it
			}
			mp := appendToken(append(at, '/'), m.Key)
			if upstreamInteger(m.Key) {
				reportFractionalRef(p, m.Value, mp)
				if m.Value.Kind == jsonread.Array {
					for i, it := range m.Value.Items {
						reportFractionalRef(p, it, strconv.AppendInt(append(mp, '/'), int64(i), 10))
					}
				}
				continue
			}
			walkFractionalRef(p, m.Value, mp, depth+1)
		}
	case jsonread.Array:
		for i, it := range n.Items {
			if it != nil && (it.Kind == jsonread.Object || it.Kind == jsonread.Array) {
				walkFractionalRef(p, it, strconv.AppendInt(append(at, '/'), int64(i), 10), depth+1)
			}
		}
	}
}

func reportFractionalRef(p *lint.Pass, n *jsonread.Node, ptr []byte) {
	if n == nil || n.Kind != jsonread.Number {
		return
	}
	if _, isInt := n.Int(); isInt {
		return
	}
	if f, ok := n.Float(); ok && f == float64(int64(f)) {
		return // 30.0: an integer value
	}
	at := string(ptr)
	p.Reportf(at, "%s is %s: valid (the contract allows any number), but %s, which wanted an integer", dotted(at), n.Str, upstreamDialect)
}

// ptrPath is a JSON Pointer under construction: walkers push and pop tokens and build
// the pointer string only when they report.
type ptrPath []string

func (p ptrPath) String() string {
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		b.WriteString(jsonread.EscapeToken(t))
	}
	return b.String()
}

// TestWalkOf: walkOf's switch answers what walkOfKind does, for every kind of
// the protocol and others.
func TestWalkOf(t *testing.T) {
	kinds := append([]string{"", "EVENT", "EVENT:", "EVENT:OTHER", "HEARTBEAT", "TASK ", "task"}, allKinds...)
	for _, k := range kinds {
		sh, frac := walkOf(k)
		wsh, wfrac := walkOfKind(k)
		if sh != wsh || frac != wfrac {
			t.Errorf("walkOf(%q) = %p %v, walkOfKind %p %v", k, sh, frac, wsh, wfrac)
		}
	}
	for i, k := range walkKinds {
		if !slices.Contains(allKinds, k) {
			t.Errorf("walkKinds[%d] %q is no kind of the protocol", i, k)
		}
	}
}

// TestSchemaFileOf: SchemaFile's switch and memo answer what schemaFileOf does.
func TestSchemaFileOf(t *testing.T) {
	kinds := append([]string{"", "EVENT:", "EVENT:OTHER", "HEARTBEAT", "PROGRESS_UPDATE", "TASK ", "task"}, allKinds...)
	for range 2 { // the memo's first answers, then its kept ones
		for _, k := range kinds {
			if got, want := SchemaFile(k), schemaFileOf(k); got != want {
				t.Errorf("SchemaFile(%q) = %q, schemaFileOf %q", k, got, want)
			}
		}
	}
}

// kindOfRef is kindOf by a Get of each member, as it was.
func kindOfRef(root *jsonread.Node) string {
	switch root.Get("message_type").String() {
	case "TASK":
		return KindTask
	case "RESPONSE":
		return KindResponse
	case "EVENT":
		if ev := root.Get("event").String(); isEventName(ev) {
			return eventKind(ev)
		}
		return KindEvent
	}
	if isEventName(root.Get("event").String()) && !root.Has("message_type") {
		return eventKind(root.Get("event").String())
	}
	return ""
}

// FuzzKindOf: kindOf's one pass names the kind kindOfRef's Gets name.
func FuzzKindOf(f *testing.F) {
	for _, s := range []string{
		`{"message_type":"TASK"}`, `{"message_type":"EVENT","event":"HEARTBEAT"}`, `{"event":"HEARTBEAT"}`,
		`{"message_type":"EVENT","event":"NOPE"}`, `{"message_type":"EVENT","event":"HEARTBEAT","event":"PROGRESS_UPDATE"}`,
		`{"message_type":"RESPONSE","message_type":"X","event":"HEARTBEAT"}`, `{"message_type":null,"event":"HEARTBEAT"}`,
		`{"message_type":"TASK","message_type":"EVENT","event":7}`, `{}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		root, _, err := jsonread.Parse([]byte(s))
		if err != nil || root == nil || root.Kind != jsonread.Object {
			return
		}
		if got, want := kindOf(root), kindOfRef(root); got != want {
			t.Fatalf("%s: kindOf %q, by Gets %q", s, got, want)
		}
	})
}
