package aos

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// MaxTracked bounds each table of the sequence state (open requests, tool calls,
// message and step ids, pending modifications). Past it the oldest entries are
// forgotten, once reported as info.
const MaxTracked = 4096

// bounded is a table of the state: at most MaxTracked entries, the oldest
// forgotten past it (once reported as info); its buffers come from a pool on
// the first put and go back when the checker finishes (release). Its keys
// must be owned (built by concatenation, or copied with own), never strings
// into the message's line.
type bounded[V any] = seqgroup.Table[V]

// The pools of the state's tables.
var (
	openPool      seqgroup.BoundedPool[*request]
	donePool      seqgroup.BoundedPool[*request]
	toolsPool     seqgroup.BoundedPool[*toolCall]
	stepsPool     seqgroup.BoundedPool[step]
	modsPool      seqgroup.BoundedPool[modification]
	firstStepPool seqgroup.BoundedPool[mark]
)

// own returns a string of a message that the state keeps (a key, a witness's
// text): a copy, so that the state pins a few bytes, not the message's whole
// line (lint.Message: a kept string of the tree keeps its line alive).
func own(s string) string { return strings.Clone(s) }

// suffix returns the end of key, an owned key that ends with s, as long as s:
// a copy of s that costs no copy (it shares key's bytes, which the table keeps
// anyway).
func suffix(key, s string) string { return key[len(key)-len(s):] }

// mark is a witness kept by the state: where a value is (line, column, pointer)
// and what it is, as a template and its arguments. The text is built only when a
// finding names it (rel), not for every message the state keeps.
type mark struct {
	line, col int32
	kind      markKind
	ptr       string
	a, b      string
}

type markKind uint8

const (
	markRequest  markKind = iota // a: method, b: id key
	markAnswer                   // b: id key
	markNullErr                  // the error response with a null id
	markDecision                 // a: decision, b: id key
	markTool                     // a: executionId
	markResult                   // a: executionId
	markMessage                  // a: message id
	markStep                     // a: method, b: step id
	markFirst                    // a: session id
)

// rel renders a mark as the Related of a finding.
func (c *checker) rel(k mark) lint.Related {
	var text string
	switch k.kind {
	case markRequest:
		if k.a == "" {
			text = "the request (without a method) " + keyText(k.b)
		} else {
			text = "the " + k.a + " request " + keyText(k.b)
		}
	case markAnswer:
		text = "the response to " + keyText(k.b)
	case markNullErr:
		text = "the error response with a null id"
	case markDecision:
		text = "the guardian's " + k.a + " for request " + keyText(k.b)
	case markTool:
		text = fmt.Sprintf("the toolCallRequest with executionId %q", k.a)
	case markResult:
		text = fmt.Sprintf("the toolCallResult for %q", k.a)
	case markMessage:
		text = fmt.Sprintf("the message %q", k.a)
	case markStep:
		text = fmt.Sprintf("the %s step %q", k.a, k.b)
	case markFirst:
		text = "the first step of session \"" + k.a + "\""
	}
	return lint.Related{Path: c.path, Line: int(k.line), Column: int(k.col), Pointer: k.ptr, Message: text}
}

// keyText renders an id key (idKey) as idText renders the id.
func keyText(key string) string {
	if strings.HasPrefix(key, "s:") {
		return fmt.Sprintf("%q", key[2:])
	}
	return strings.TrimPrefix(key, "n:")
}

// request is what the state keeps of an agent request.
type request struct {
	w       mark
	key     string // id key
	method  string
	execID  string     // steps/toolCallRequest
	subject subjectKey // what a modification applies to
	at      time.Time

	// Once answered (the request then moves from the open table to done):
	// enough for a second answer (AOS-SEQ-002) and for telling a re-sent
	// request from a reuse. In the request itself, so that done holds a
	// pointer, not a copy of them.
	answer   mark
	decision string // "allow", "deny", "modify", "error", "ping" or ""
}

// toolCall is what the state keeps of a toolCallRequest's executionId.
type toolCall struct {
	w         mark
	reqKey    string // the request's id key
	decision  string
	decisionW mark
	// modifiedExec is the executionId of the modified request, when it changed.
	modifiedExec string
	modSeq       uint64 // which modification set modifiedExec (state.modified then)
	result       bool
	// call and modCall are the call's signatures (callSig) as requested and as
	// modified by the guardian, made when an executed record needs them.
	call, modCall lazySig
	executed      bool
	// resultW and resultReq name the first toolCallResult (AOS-SEQ-017).
	resultW   mark
	resultReq string
}

// modification is a pending modify: the agent's next request on the same subject
// must carry the modified payload.
type modification struct {
	w       mark
	method  string
	payload string
}

// step is what the state keeps of a step id.
type step struct {
	w      mark
	method string
	execID string
	reqKey string
}

// state is the sequence state of one stream, kept once for all AOS sequence rules
// (they are one rule group).
type state struct {
	open        bounded[*request] // unanswered requests by id key
	done        bounded[*request] // answered requests by id key
	tools       bounded[*toolCall]
	msgIDs      bounded[step]
	steps       bounded[step]
	mods        bounded[modification]
	firstStep   bounded[mark] // by session id (AOS-SEQ-016)
	sawResponse bool
	modified    uint64 // the tool calls given a modifiedExec so far (toolCall.modSeq)
	// modExecs is the tool call given each modifiedExec last (lookupTool).
	modExecs bounded[*toolCall]
	buf      []byte // lookupKey's
	// timeout is the latest ping's params.timeout (AOS-SEQ-018), of timeoutMS
	// milliseconds, at timeoutW in timeoutPath: its witness (timeoutWitness)
	// is made only for a finding.
	timeout     time.Duration
	timeoutMS   int64
	timeoutW    mark
	timeoutPath string
}

func newState() *state {
	return &state{
		open:      seqgroup.NewTable(MaxTracked, &openPool),
		done:      seqgroup.NewTable(MaxTracked, &donePool),
		tools:     seqgroup.NewTable(MaxTracked, &toolsPool),
		msgIDs:    seqgroup.NewTable(MaxTracked, &stepsPool),
		steps:     seqgroup.NewTable(MaxTracked, &stepsPool),
		mods:      seqgroup.NewTable(MaxTracked, &modsPool),
		firstStep: seqgroup.NewTable(MaxTracked, &firstStepPool),
		modExecs:  seqgroup.NewTable(MaxTracked, &toolsPool),
	}
}

// timeoutWitness names the ping that declared the timeout.
func (st *state) timeoutWitness() lint.Related {
	k := st.timeoutW
	return lint.Related{Path: st.timeoutPath, Line: int(k.line), Column: int(k.col), Pointer: k.ptr,
		Message: fmt.Sprintf("the ping declaring a %d ms timeout", st.timeoutMS)}
}

// release gives the tables' buffers back (the stream's session is over).
func (st *state) release() {
	st.open.Release()
	st.done.Release()
	st.tools.Release()
	st.msgIDs.Release()
	st.steps.Release()
	st.mods.Release()
	st.firstStep.Release()
	st.modExecs.Release()
}

// intern returns the spec's own string for a method (spec.Method) or decision
// it names (no copy), else a copy (own): the state keeps it, and so keeps no
// copy of the name per request.
func intern(method string) string {
	if m := spec.Method(method); m != "" {
		return m
	}
	switch method {
	case spec.Allow:
		return spec.Allow
	case spec.Deny:
		return spec.Deny
	case spec.Modify:
		return spec.Modify
	case "error":
		return "error"
	}
	return own(method)
}

// idKey renders a JSON-RPC id so that "1" and 1 differ, and 1 and 1.0 do not
// (spec.RequestID, §3.12.1).
func idKey(n *jsonread.Node) (string, bool) {
	kind, id, ok := idKeyParts(n)
	if !ok {
		return "", false
	}
	return kind + id, true
}

// idKeyParts returns idKey(n) in its two parts: "s:" or "n:", and the id.
func idKeyParts(n *jsonread.Node) (kind, id string, ok bool) {
	if n == nil {
		return "", "", false
	}
	switch n.Kind {
	case jsonread.String:
		return "s:", n.Str, true
	case jsonread.Number:
		if plainInt(n.Str) {
			return "n:", n.Str, true // what spec.RequestID renders it as (TestIDKeyPlainInt)
		}
		if id, ok := spec.RequestID(json.Number(n.Str)); ok {
			return "n:", id.Str, true
		}
		return "n:", n.Str, true
	}
	return "", "", false
}

// lookupKey is idKey(n) made in st.buf, for looking a key up: it is not kept
// (it is valid until the next lookupKey), so it costs no allocation.
func (st *state) lookupKey(n *jsonread.Node) (string, bool) {
	kind, id, ok := idKeyParts(n)
	if !ok {
		return "", false
	}
	st.buf = append(append(st.buf[:0], kind...), id...)
	return unsafe.String(unsafe.SliceData(st.buf), len(st.buf)), true // kind is not empty
}

// plainInt reports whether s is an integer as strconv.FormatInt writes it, of
// at most 18 digits (so within int64): spec.RequestID renders such a number as
// s itself, and idKey need not parse it.
func plainInt(s string) bool {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || (d[0] == '0' && (len(d) > 1 || len(s) > 1)) {
		return false // empty, too long, a leading zero, or "-0"
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

func idText(n *jsonread.Node) string {
	if n == nil {
		return "(none)"
	}
	return raw(n)
}

// canonical renders a JSON value with sorted keys, for comparisons.
func canonical(n *jsonread.Node) string {
	if n == nil {
		return ""
	}
	b, err := json.Marshal(n.Interface())
	if err != nil {
		return ""
	}
	return string(b)
}

// payload is the part of a request a modification changes: params without context
// and reasoning (context carries a fresh stepId and timestamp when re-sent).
func payload(req *jsonread.Node) string {
	params := req.Get("params")
	if params == nil || params.Kind != jsonread.Object {
		return canonical(params)
	}
	cp := &jsonread.Node{Kind: jsonread.Object}
	for _, m := range params.Members {
		if m.Key != "context" && m.Key != "reasoning" {
			cp.Members = append(cp.Members, m)
		}
	}
	return canonical(cp)
}

// subject names what a request is about, so a re-sent request after modify can be
// matched with the one the guardian modified. method, params, ctx and sessionID
// are req's: its method, params, params.context and params.context.session.id
// as the caller read them; execID is its toolCallRequest's executionId and
// stepKey its key in the steps table (session id, turnId and stepId), both
// owned, "" when it has none: the usual subject is kept as them, not copied.
func subject(req *jsonread.Node, method string, params, ctx *jsonread.Node, sessionID, execID, stepKey string) subjectKey {
	switch method {
	case "steps/toolCallRequest":
		if execID != "" {
			return subjectKey{head: "tool", rest: execID}
		}
	case "protocols/A2A", "protocols/MCP":
		if w, _ := wrappedMessage(req); w != nil {
			if k, ok := idKey(w.Get("id")); ok {
				return subjectKey{whole: method + "\x00" + k + "\x00" + w.Get("method").String()}
			}
		}
		return subjectKey{}
	case "ping", "steps/toolCallResult":
		return subjectKey{}
	}
	if ctx == nil {
		return subjectKey{}
	}
	if stepKey != "" { // its stepId is a string: stepKey is the rest of the subject
		return subjectKey{head: method, rest: stepKey}
	}
	return subjectKey{whole: method + "\x00" + sessionID + "\x00" + ctx.Get("turnId").String() + "\x00" + ctx.Get("stepId").String()}
}

// subjectKey is a request's subject: whole, or two owned parts joined (by a
// NUL) only when a modification needs the subject, which few requests get.
type subjectKey struct {
	whole, head, rest string
}

// String returns the subject ("" for none).
func (k *subjectKey) String() string {
	if k.whole != "" || k.head == "" {
		return k.whole
	}
	return k.head + "\x00" + k.rest
}

// none reports whether the request has no subject.
func (k *subjectKey) none() bool { return k.whole == "" && k.head == "" }

func sortRelated(rs []lint.Related) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Line < rs[j].Line })
}

// callSig renders a tool call (tool name and arguments by name) for comparison.
func callSig(name string, args map[string]any) string {
	b, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		return ""
	}
	return string(b)
}

// requestSig is the signature of a ToolCallRequest object: toolId and inputs.
func requestSig(tcr *jsonread.Node) string {
	if tcr == nil || tcr.Kind != jsonread.Object {
		return ""
	}
	args := map[string]any{}
	var inputs []*jsonread.Node
	if in := tcr.Get("inputs"); in != nil {
		inputs = in.Items
	}
	for _, in := range inputs {
		if n := in.Get("name"); n.IsString() {
			if v := in.Get("value"); v != nil {
				args[n.Str] = v.Interface()
			} else {
				args[n.Str] = nil
			}
		}
	}
	return callSig(tcr.Get("toolId").String(), args)
}

// lazySig is a ToolCallRequest's signature (requestSig), made only when it is
// compared (an executed binding record, rare): until then it keeps a copy of the
// object's JSON text, which costs one copy instead of the signature's encoding.
type lazySig struct {
	raw  string // the object's text; "" once sig is made
	sig  string
	done bool
}

// sigOf keeps the signature of tcr, an object of m's tree. When m's text does
// not hold tcr's (checked by its braces and first key), the signature is made now.
func sigOf(m *lint.Message, tcr *jsonread.Node) lazySig {
	if tcr == nil || tcr.Kind != jsonread.Object {
		return lazySig{done: true}
	}
	if text := m.NodeText(tcr); len(text) >= 2 && text[0] == '{' && text[len(text)-1] == '}' {
		if len(tcr.Members) == 0 {
			return lazySig{raw: string(text)}
		}
		k := tcr.Members[0]
		if at := k.KeyOffset - tcr.Offset; at > 0 && at+1+len(k.Key) < len(text) &&
			text[at] == '"' && string(text[at+1:at+1+len(k.Key)]) == k.Key {
			return lazySig{raw: string(text)}
		}
	}
	return lazySig{sig: requestSig(tcr), done: true}
}

// get returns the signature ("" for none).
func (l *lazySig) get() string {
	if !l.done {
		if root, _, err := jsonread.Parse([]byte(l.raw)); err == nil {
			l.sig = requestSig(root)
		}
		l.raw, l.done = "", true
	}
	return l.sig
}

// executedSig is the signature of a binding {"executed": {...}} record.
func executedSig(e *jsonread.Node) string {
	args := map[string]any{}
	if a := e.Get("arguments"); a != nil && a.Kind == jsonread.Object {
		for _, m := range a.Members {
			args[m.Key] = m.Value.Interface()
		}
	}
	return callSig(e.Get("name").String(), args)
}
