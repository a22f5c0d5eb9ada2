package lint

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// Options are the user's settings that rules may read.
type Options struct {
	// TaskType selects the aop-output summary limits (--task-type).
	TaskType string
	// BaseDir is the directory of the file being linted, for paths inside messages
	// (aop-output DETAILS_FILE). Empty when the input is not a file on disk.
	BaseDir string
	// DetailsRoot, when set, is the directory the agent ran in, against which an
	// aop-output report's relative DETAILS_FILE path is resolved (aoplint
	// --details-root; aopconform's lint step: the scratch directory). Where it is
	// known, a details file missing there is an error (AOPOUT-DETAILS-002); where
	// it is not (a report stored and linted elsewhere), a warning.
	DetailsRoot string
	// LintFile lints a file a message names (aop-output's details file) on
	// its own, with the default options; the driver sets it, nil elsewhere.
	LintFile FileLinter
}

// Message is one message of a protocol, detected and parsed.
//
// Ownership (what the driver, lint/linter, promises and asks): a Message, its
// Pos, its Root and every node of the tree are the driver's and valid only during
// the call that receives them (Rule.Run, Checker.Observe); the driver reuses
// their memory for later lines (linter's TestArenaOwnership poisons it).
// Keep a Witness, never the message, its index or a node. The strings of the tree
// and of the message's fields, and Raw, point into the bytes of the message's
// line, which the driver reuses for a later line once the call returns (every
// test binary overwrites them): copy a string you keep (strings.Clone), and never
// modify Raw.
type Message struct {
	Path     string
	Protocol string // "" when no protocol was recognised
	Kind     string // message kind within the protocol; "" when unknown
	Dialect  string // an upstream dialect recognised by the detector, or ""

	Root *jsonread.Node // the parsed JSON; nil for text messages
	Raw  []byte         // the message's bytes (JSON text, or the text block)
	// RawAt is where Raw starts in the coordinates of the tree's offsets
	// (jsonread.Node.Offset): a transcript record's msg is parsed with its
	// record, so its nodes count from the record's first byte while Raw is the
	// msg's own text. NodeText does the arithmetic.
	RawAt int
	Pos   *LineIndex // maps offsets in Raw to lines and columns of the file

	// Stream context (zero for a single message).
	Index   int       // 0-based position in the stream
	From    string    // "agent", "orchestrator", "harness" or "" if unknown
	At      time.Time // harness clock (transcript/1 "at"); zero when unknown
	Session string    // transcript/1 "session"
	Stream  string    // transcript/1 "stream" ("stdout", "file:<path>", "control", ...)
	// CutOff: the harness stopped the agent before this output was complete
	// (transcript/1 "detail":{"cut_off":true}); rules do not blame the missing end.
	CutOff bool

	Opts *Options

	// Parsed is what a protocol's rules made of the message, made by the first
	// rule that needs it and kept for the others of the same message: aop-output's
	// report parsed from Raw (and what its rules share of it), aop2's one walk of
	// the tree (lint/aop2/walk.go), the part lists of an aos request.
	Parsed any
}

// Line is the line of the message's first byte.
// NodeText is the text of n, a node of m's tree, in Raw; nil when Raw does not
// hold it.
func (m *Message) NodeText(n *jsonread.Node) []byte {
	if n == nil {
		return nil
	}
	i, j := n.Offset-m.RawAt, n.End-m.RawAt
	if i < 0 || i >= j || j > len(m.Raw) {
		return nil
	}
	return m.Raw[i:j]
}

func (m *Message) Line() int {
	l, _ := m.Pos.Position(0)
	return l
}

// Node resolves a JSON Pointer in the message (nil if absent or a text message).
func (m *Message) Node(pointer string) *jsonread.Node {
	if m.Root == nil {
		return nil
	}
	return m.Root.Lookup(pointer)
}

// Member is Node of a pointer made of member names only ("/a/b": no array
// index and no ~ escape, as rules write their pointers as constants), by a Get
// for each name instead of Lookup's reading of the pointer.
func (m *Message) Member(at string) *jsonread.Node {
	if at == "" {
		return m.Root
	}
	parent, key := MemberParent(m.Root, at)
	return parent.Get(key)
}

// MemberParent resolves a non-empty pointer of member names (see
// Message.Member) below root but for its last name: the parent's node (nil when
// absent) and the last name, so that parent.Get(key) is root.Lookup(at).
func MemberParent(root *jsonread.Node, at string) (parent *jsonread.Node, key string) {
	parent, key = root, at[1:]
	for {
		i := strings.IndexByte(key, '/')
		if i < 0 {
			return parent, key
		}
		if parent = parent.Get(key[:i]); parent == nil {
			return nil, ""
		}
		key = key[i+1:]
	}
}

// PointerPosition returns the line and column of the value at pointer, or of the
// nearest enclosing value that exists.
func (m *Message) PointerPosition(pointer string) (line, col int) {
	if m.Root == nil {
		return m.Pos.Position(0)
	}
	n, _ := m.Root.Nearest(pointer)
	if n == nil {
		return m.Pos.Position(0)
	}
	return m.Pos.Position(n.Offset)
}

// LineIndex maps byte offsets of a message to lines and columns in its file.
type LineIndex struct {
	BaseLine, BaseCol int   // position of offset 0 (1-based)
	starts            []int // offsets where lines 2, 3, ... of the message begin
	// Flat maps every offset to BaseLine:BaseCol: for text that was decoded from a
	// JSON string (a transcript record's "text"), whose offsets are not file columns.
	Flat bool
}

// NewLineIndex indexes raw, whose first byte stands at baseLine:baseCol.
func NewLineIndex(raw []byte, baseLine, baseCol int) *LineIndex {
	li := new(LineIndex)
	li.Reset(raw, baseLine, baseCol)
	return li
}

// Reset makes li the index NewLineIndex(raw, baseLine, baseCol) returns, reusing
// li's memory: for a driver that indexes one message after another.
func (li *LineIndex) Reset(raw []byte, baseLine, baseCol int) {
	li.BaseLine, li.BaseCol, li.Flat = baseLine, baseCol, false
	li.starts = li.starts[:0]
	for off := 0; ; {
		i := bytes.IndexByte(raw[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		li.starts = append(li.starts, off)
	}
}

// ShiftTo makes dst the index li.Shift(start) returns, reusing dst's memory.
func (li *LineIndex) ShiftTo(dst *LineIndex, start int) {
	l, c := li.Position(start)
	dst.BaseLine, dst.BaseCol, dst.Flat = l, c, false
	dst.starts = dst.starts[:0]
	for _, st := range li.starts {
		if st > start {
			dst.starts = append(dst.starts, st-start)
		}
	}
}

// Shift returns an index for offsets counted from start.
func (li *LineIndex) Shift(start int) *LineIndex {
	out := new(LineIndex)
	li.ShiftTo(out, start)
	return out
}

// Position returns the 1-based line and column (in bytes) of offset.
func (li *LineIndex) Position(off int) (line, col int) {
	if li == nil {
		return 1, 1
	}
	if li.Flat {
		return li.BaseLine, li.BaseCol
	}
	n := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off })
	if n == 0 {
		return li.BaseLine, li.BaseCol + off
	}
	return li.BaseLine + n, off - li.starts[n-1] + 1
}

// Pass is what a rule sees of one message and how it reports.
type Pass struct {
	Msg  *Message
	Rule *Rule

	diags   []Diagnostic
	claimed []string
	sink    *Pass   // where As passes report to (nil: this pass)
	as      []*Pass // the As passes made so far, reused (on the root pass)
}

// As returns a pass over the same message that reports under rule r (with r's
// severity and spec), into the same diagnostics as p: how a group's shared
// checker reports for each of its rules. The pass is valid while p is: a pass
// reused by the driver (Reset) reuses its As passes too, so As allocates once per
// rule, not once per rule and message.
func (p *Pass) As(r *Rule) *Pass {
	root := p
	if p.sink != nil {
		root = p.sink
	}
	for _, q := range root.as {
		if q.Rule == r {
			q.Msg = p.Msg
			return q
		}
	}
	q := &Pass{Msg: p.Msg, Rule: r, sink: root}
	root.as = append(root.as, q)
	return q
}

// NewPass prepares a pass of rule over msg (msg may be nil in Checker.Finish).
func NewPass(rule *Rule, msg *Message) *Pass { return &Pass{Rule: rule, Msg: msg} }

// Reset makes p a fresh pass of rule over msg, reusing its buffers: a driver
// that reads a pass's results before the next Reset needs one pass, not one per
// rule and message.
func (p *Pass) Reset(rule *Rule, msg *Message) {
	// Field by field, not by assigning a whole Pass: while the GC marks, a
	// struct copy pays a write barrier for every pointer it holds.
	if len(p.diags) > 0 {
		clear(p.diags) // drop the references (Related, strings) the last results held
		p.diags = p.diags[:0]
	}
	if len(p.claimed) > 0 {
		clear(p.claimed)
		p.claimed = p.claimed[:0]
	}
	if p.sink != nil {
		p.sink = nil
	}
	p.Rule, p.Msg = rule, msg
}

// Diagnostics returns what was reported.
func (p *Pass) Diagnostics() []Diagnostic { return p.diags }

// Claimed returns the pointers claimed by precise diagnostics.
func (p *Pass) Claimed() []string { return p.claimed }

// Node resolves a JSON Pointer in the current message.
func (p *Pass) Node(pointer string) *jsonread.Node { return p.Msg.Node(pointer) }

// Member is Node of a pointer of member names (Message.Member).
func (p *Pass) Member(at string) *jsonread.Node { return p.Msg.Member(at) }

// Reportf reports at the value at pointer with the rule's severity.
func (p *Pass) Reportf(pointer, format string, args ...any) {
	p.ReportSevf(p.Rule.Severity, pointer, format, args...)
}

// ReportSevf reports at the value at pointer with the given severity.
func (p *Pass) ReportSevf(sev Severity, pointer, format string, args ...any) {
	line, col := p.Msg.PointerPosition(pointer)
	p.add(Diagnostic{Severity: sev, Pointer: pointer, Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
}

// ReportOffsetf reports at a byte offset of the message (text messages).
func (p *Pass) ReportOffsetf(sev Severity, offset int, format string, args ...any) {
	line, col := p.Msg.Pos.Position(offset)
	p.add(Diagnostic{Severity: sev, Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
}

// ReportRelatedf reports at pointer and names earlier places (witnesses).
func (p *Pass) ReportRelatedf(sev Severity, pointer string, related []Related, format string, args ...any) {
	var line, col int
	if p.Msg != nil {
		line, col = p.Msg.PointerPosition(pointer)
	}
	p.add(Diagnostic{Severity: sev, Pointer: pointer, Line: line, Column: col, Message: fmt.Sprintf(format, args...), Related: related})
}

// ReportAtf reports at an explicit line and column (e.g. from Finish, about a
// message seen earlier, whose Witness the checker kept).
func (p *Pass) ReportAtf(sev Severity, w Related, related []Related, format string, args ...any) {
	p.add(Diagnostic{Severity: sev, Pointer: w.Pointer, Line: w.Line, Column: w.Column, Message: fmt.Sprintf(format, args...), Related: related})
}

// Claim marks pointer (and everything below it) as covered by a precise diagnostic
// of this rule, so the generic schema diagnostics there are dropped.
func (p *Pass) Claim(pointer string) {
	if p.sink != nil {
		p.sink.Claim(pointer)
		return
	}
	p.claimed = append(p.claimed, pointer)
}

func (p *Pass) add(d Diagnostic) {
	d.Rule = p.Rule.ID
	d.Spec = p.Rule.Spec
	if p.Msg != nil {
		d.Path = p.Msg.Path
	}
	if p.sink != nil {
		p.sink.diags = append(p.sink.diags, d)
		return
	}
	p.diags = append(p.diags, d)
}

// Witness describes a place in message m, to be named by a later diagnostic. It is
// small: checkers keep witnesses, never whole messages.
func Witness(m *Message, pointer, text string) Related {
	line, col := m.PointerPosition(pointer)
	return Related{Path: m.Path, Line: line, Column: col, Pointer: pointer, Message: text}
}

// IsClaimed reports whether pointer lies at or below one of claimed.
func IsClaimed(claimed []string, pointer string) bool {
	for _, c := range claimed {
		if c == "" || pointer == c || strings.HasPrefix(pointer, c+"/") {
			return true
		}
	}
	return false
}
