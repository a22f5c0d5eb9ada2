package linter

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/generic"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// MaxDiagnostics bounds what one input keeps; past it only counts go on.
const MaxDiagnostics = 10000

// MaxSessions bounds the sessions (transcript "session" values) whose sequence state
// is kept at once; past it the oldest session's state is finished and dropped.
const MaxSessions = 1024

// stream is the state of linting one input.
type stream struct {
	path     string
	opts     Options
	diags    []lint.Diagnostic
	dropped  SeverityCounts
	messages int
	protos   map[string]bool
	// lastProto is the protocol added to protos last (sawProtocol).
	lastProto string
	kind      string
	first     string // first protocol detected, for the log-line leniency of orchmsg
	marks     *marks // the lines that hold opts.Marker (nil: none kept)
	// early holds the non-message lines seen before the first message: whether
	// they are log output (orchmsg) or errors depends on the stream's protocol.
	// They are held as bytes, like pending harness records, and built again when
	// the protocol is known (earlyB).
	early  []heldRecord
	earlyB *builder

	// line is the bytes of the unit being applied (reused for the next line):
	// add copies the diagnostics' strings that point into it.
	line []byte

	sessions map[string]*session
	order    []string // session keys, oldest first
	// lastKey and lastSess are the session found last (consecutive
	// messages are mostly of one session): no hash of the key then. Cleared
	// when that session ends.
	lastKey  string
	lastSess *session
	// pendingBytes counts the records held in the sessions' pending lists,
	// bounded by maxPendingBytes; pendingFull marks that the bound was hit.
	pendingBytes int
	pendingFull  bool

	// pass is reused by every sequence-rule call: its results are copied out
	// (add) before the next call.
	pass lint.Pass
	// seqRules caches seqRulesFor for the ordered stage: a short list (a
	// stream sees a few protocols), searched before a map would have hashed.
	seqRules []protoRules
	// spare is a finished session's pending list and held bytes, emptied, for
	// the next session to hold its records in (sessions mostly come one after
	// another: one pair of buffers serves them all).
	spare struct {
		pending []heldRecord
		held    []byte
	}
	// replay builds held records again for checkers that start later (its own
	// arena: the unit being applied may still be in the workers' one).
	replay *builder
	// freeSessions and spareCks are finished sessions and their checker lists,
	// emptied, for new sessions (a transcript opens one per scenario): their
	// slices keep their capacity, the checkers themselves are dropped.
	freeSessions []*session
	spareCks     [][]checker
}

// maxFree bounds the finished sessions kept for reuse (and, four times over,
// their checker lists).
const maxFree = 8

// own returns str, copied if it points into the unit being applied (a line
// whose bytes the driver reuses): for what the stream keeps past the line.
func (s *stream) own(str string) string {
	if len(str) == 0 || len(s.line) == 0 {
		return str
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(str)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s.line)))
	if p >= start && p < start+uintptr(len(s.line)) {
		return strings.Clone(str)
	}
	return str
}

type session struct {
	key          string          // its key in stream.sessions
	checkers     []protoCheckers // sorted by protocol (a session sees one to five)
	pending      []heldRecord    // harness and control records, for checkers started later
	pendingBytes int
	// held is the pending records' bytes, copied back to back (one growing
	// buffer per session, not an allocation per record).
	held []byte
}

// protoCheckers are a session's checkers of one protocol.
type protoCheckers struct {
	protocol string
	cks      []checker
}

// heldRecord is a harness or control record held for the checkers of a protocol
// whose first message in the session comes later (or a line held before the
// stream's first message, early): a copy of the bytes of its unit (the driver
// reuses the line's own), not its tree. A tree is pointers the
// collector marks on every cycle for as long as the session is open; bytes are
// not, and are smaller. The rare replay (checkersFor) parses the unit again, to
// the same message.
type heldRecord struct {
	src       []byte
	line, col int
	index     int
	whole     bool
}

type checker struct {
	rule *lint.Rule
	c    lint.Checker
}

func newStream(path string, opts Options) *stream {
	return &stream{path: path, opts: opts, protos: map[string]bool{}, sessions: map[string]*session{}}
}

func (s *stream) add(ds ...lint.Diagnostic) {
	for _, d := range ds {
		if len(s.diags) >= MaxDiagnostics {
			s.dropped.Add(d.Severity)
			continue
		}
		d.Path = s.path
		// Rules make their texts (Sprintf), but a pointer or a message may be
		// a string of the tree: kept, it must not point into the line.
		d.Message, d.Pointer = s.own(d.Message), s.own(d.Pointer)
		if len(d.Related) > 0 {
			rel := slices.Clone(d.Related)
			for i := range rel {
				rel[i].Path, rel[i].Pointer, rel[i].Message = s.own(rel[i].Path), s.own(rel[i].Pointer), s.own(rel[i].Message)
			}
			d.Related = rel
		}
		s.diags = append(s.diags, d)
	}
}

func (s *stream) report(r *lint.Rule, line, col int, pointer, format string, args ...any) {
	s.add(lint.Diagnostic{Rule: r.ID, Severity: r.Severity, Spec: r.Spec, Line: line, Column: col, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

func (s *stream) result() FileResult {
	lint.SortDiagnostics(s.diags)
	var notKept *SeverityCounts
	if n := s.dropped.Total(); n > 0 {
		s.diags = append(s.diags, NotKeptNote(s.path, s.dropped))
		c := s.dropped
		notKept = &c
	}
	res := FileResult{Path: s.path, Messages: s.messages, Diagnostics: s.diags, NotKept: notKept}
	if res.Diagnostics == nil {
		res.Diagnostics = []lint.Diagnostic{}
	}
	switch {
	case s.opts.Protocol != "":
		res.Protocol = s.opts.Protocol
	case len(s.protos) == 1:
		for p := range s.protos {
			res.Protocol = p
		}
	case len(s.protos) > 1:
		res.Protocol = "mixed"
	}
	if s.messages == 1 {
		res.Kind = s.kind
	}
	return res
}

// framedBy returns the protocol whose line prefix (lint.Protocol.LinePrefix:
// "AOF/1 ") opens line, or nil.
func framedBy(line []byte) *lint.Protocol {
	for _, p := range lint.Protocols() {
		if pre := p.LinePrefix; pre != "" && len(line) >= len(pre) && string(line[:len(pre)]) == pre {
			return p
		}
	}
	return nil
}

// framing reports whether the protocol named id frames its lines with a
// prefix: such a line is the protocol's even when its JSON is broken.
func framing(id string) bool {
	p := lint.LookupProtocol(id)
	return p != nil && p.LinePrefix != ""
}

// logLines returns the protocol named id when its streams may carry log
// lines (lint.Protocol.LogLines), else nil.
func logLines(id string) *lint.Protocol {
	if p := lint.LookupProtocol(id); p != nil && p.LogLines != "" {
		return p
	}
	return nil
}

// logLineProtocols names the protocols whose streams may carry log lines:
// "orchmsg".
func logLineProtocols() string {
	var ids []string
	for _, p := range lint.ListedProtocols() {
		if p.LogLines != "" {
			ids = append(ids, p.ID)
		}
	}
	return lint.JoinWords(ids, "and")
}

// unitOut is what the parallel stage makes of one unit of input (a whole file or a
// line): its single-message diagnostics, and what the ordered stage still needs.
type unitOut struct {
	diags   []lint.Diagnostic
	msg     *lint.Message // a protocol message, for the sequence rules
	harness *lint.Message // a harness event record, for the sequence rules
	logLine *logLine      // a non-JSON line whose verdict depends on the stream
	// proto is the protocol the framing names when no message could be parsed
	// (an `AOF/1 ` line with broken JSON is still AOF's).
	proto string
	// notMessage marks a line of a stream that is not a protocol message: broken
	// JSON, or JSON no protocol claims. In an orchmsg stream such a line is log
	// output (Parsing Strategy), an info; elsewhere its diagnostics stand.
	notMessage bool
	// noMarker says the unit's whole bytes parsed as JSON without an object key
	// equal to Options.Marker (jsonread.Arena.WatchKey): no line of it to keep.
	noMarker bool
	// unit is the unit built: the ordered stage holds a copy of its bytes
	// (held, heldIn), not the tree, for checkers that start later and for the
	// lines before the stream's first message.
	unit heldRecord
}

// logLine is a non-JSON line of a stream: info in orchmsg streams, else an error.
type logLine struct {
	line, col int
	hint      string
	excerpt   string
}

// builder lints units independently of each other: it may run on many goroutines.
type builder struct {
	path  string
	opts  *Options
	whole bool
	index int
	out   unitOut
	pass  lint.Pass // reused by the single-message rules of the unit
	// claimed is the pointers the single-message rules claimed (reused).
	claimed []string
	text    textDetection // the last text detected in the unit
	// whole1 is set while unit's json parses the unit's own bytes (noMarker).
	whole1 bool
	// rules caches rulesFor for the builder's goroutine: no lock, and no key
	// boxed into an interface per message; per protocol (a short list), a map
	// by kind (a string key hashes faster than a struct of two).
	rules []kindRules
	// recent are the rule sets found last, by a hash of the kind (rulesFor).
	recent [recentSlots]recentRules
	// nRules counts the rule sets in rules, bounded by maxCachedKinds.
	nRules int
	arena  *jsonread.Arena // where the unit's trees go (nil: fresh memory)
	// mem, when set, is where the unit's messages and line indexes go (its
	// arena is arena).
	mem *unitMem
}

func (b *builder) add(ds ...lint.Diagnostic) { b.out.diags = append(b.out.diags, ds...) }

func (b *builder) report(r *lint.Rule, line, col int, pointer, format string, args ...any) {
	b.add(lint.Diagnostic{Path: b.path, Rule: r.ID, Severity: r.Severity, Spec: r.Spec, Line: line, Column: col, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
}

// build lints one unit of input.
func build(path string, opts *Options, whole bool, index int, data []byte, line, col int) unitOut {
	return buildIn(nil, path, opts, whole, index, data, line, col)
}

// buildIn lints one unit of input with its trees in arena: the result is valid
// until the arena's next Reset (the ordered stage holds what it keeps longer as
// bytes, heldRecord). With an arena, data must be the caller's own copy, not
// modified while the result is in use: the trees' strings point into it.
func buildIn(arena *jsonread.Arena, path string, opts *Options, whole bool, index int, data []byte, line, col int) unitOut {
	return newBuilder(arena, path, opts, whole).build(index, data, line, col)
}

// newBuilder makes a builder for the units of one input, reused from one unit to
// the next by one goroutine (a worker, or the serial driver): its pass, and the
// passes of the rules' groups (Pass.As), are made once.
func newBuilder(arena *jsonread.Arena, path string, opts *Options, whole bool) *builder {
	return &builder{path: path, opts: opts, whole: whole, arena: arena}
}

// newMemBuilder is newBuilder with the units' trees, messages and line indexes
// in mem (the caller resets it, and sets it with use).
func newMemBuilder(mem *unitMem, path string, opts *Options, whole bool) *builder {
	b := newBuilder(nil, path, opts, whole)
	b.use(mem)
	return b
}

// use makes mem the builder's memory for the units that follow.
func (b *builder) use(mem *unitMem) {
	b.mem, b.arena = mem, mem.arena
	if b.opts.Marker != "" && !b.whole {
		mem.arena.WatchKey(b.opts.Marker)
	}
}

// build lints one unit; the result holds nothing of the builder's.
func (b *builder) build(index int, data []byte, line, col int) unitOut {
	b.index, b.out = index, unitOut{}
	if b.text.data != nil {
		b.text = textDetection{}
	}
	b.unit(data, line, col)
	b.out.unit = heldRecord{src: data, line: line, col: col, index: index, whole: b.whole}
	return b.out // kept in b until the next unit: no second clearing per unit
}

// parse parses into the builder's arena, if it has one: with an arena the unit's
// bytes are the driver's own copy, not modified while the unit is in use
// (buildIn), so the trees' strings point into them.
func (s *builder) parse(data []byte) (*jsonread.Node, []jsonread.Problem, error) {
	if s.arena != nil {
		return s.arena.ParseShared(data)
	}
	return jsonread.Parse(data)
}

// unit lints one message-sized piece of input: a whole file, or one line.
func (s *builder) unit(data []byte, line, col int) {
	pos := s.newIndex()
	if s.whole {
		pos.Reset(data, line, col)
	} else {
		// A stream's line holds no '\n' (lineReader splits at each): its index
		// is its first position, found without a scan of the line.
		if poisonLines && bytes.IndexByte(data, '\n') >= 0 {
			panic("linter: a stream's unit holds a newline")
		}
		pos.Reset(nil, line, col)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	lead := len(data) - len(trimmed)
	if p := framedBy(trimmed); p != nil {
		s.json(data, lead+len(p.LinePrefix), pos, p.ID, meta{})
		return
	}
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == 0xEF || (trimmed[0] == '[' && opensArray(trimmed) && !s.isText(data))) {
		s.whole1 = true
		s.json(data, 0, pos, "", meta{})
		return
	}
	s.textWithMeta(data, pos, !s.whole, meta{}, "")
}

// meta is what a transcript record says about its message.
type meta struct {
	from, session, stream string
	at                    time.Time
	cutOff                bool // detail.cut_off: the harness stopped the agent mid-output
}

// json parses data[start:] and lints it; hint names a protocol the framing implies.
func (s *builder) json(data []byte, start int, pos *lint.LineIndex, hint string, md meta) {
	body := data[start:]
	shift := func(off int) (int, int) { return pos.Position(start + off) }
	root, problems, err := s.parse(body)
	if s.whole1 {
		// The unit's own bytes, parsed whole (not a record's text parsed later).
		s.whole1 = false
		m := s.opts.Marker
		s.out.noMarker = err == nil && m != "" && s.arena != nil && s.arena.Watched() == m && !s.arena.SawKey()
	}
	for _, pr := range problems {
		l, c := shift(pr.Offset)
		switch pr.Code {
		case "bom":
			s.report(generic.BOM, l, c, "", "%s", pr.Message)
		default:
			s.report(generic.DuplicateKey, l, c, pr.Pointer, "%s", pr.Message)
		}
	}
	if err != nil {
		if p := lint.LookupProtocol(hint); hint != "" && p != nil {
			s.out.proto = p.ID // the protocol's own string, not the line's
		}
		s.out.notMessage = !s.whole && !framing(hint)
		var se *jsonread.SyntaxError
		if errors.As(err, &se) {
			l, c := shift(se.Offset)
			switch se.Code {
			case "utf8":
				s.report(generic.UTF8, l, c, "", "%s (E_PARSE_FAILURE)", se.Msg)
			case "depth":
				s.report(generic.Depth, l, c, "", "%s (E_PARSE_FAILURE)", se.Msg)
			case "values":
				s.report(generic.Size, l, c, "", "%s: aoplint bounds the cost of one message and does not lint this one (E_PARSE_FAILURE)", se.Msg)
			case "trailing":
				s.report(generic.Trailing, l, c, "", "%s (E_PARSE_FAILURE)", se.Msg)
			default:
				s.report(generic.Parse, l, c, "", "invalid JSON: %s (E_PARSE_FAILURE)", se.Msg)
			}
		}
		if se == nil || se.Code != "trailing" || root == nil {
			return
		}
	}
	if start == 0 && root.Kind == jsonread.Object {
		if tag := root.Get("aopkit"); tag != nil {
			s.record(data, root, pos)
			return
		}
	}
	s.message(root, data, start, pos, hint, md)
}

// record lints one transcript/1 record.
func (s *builder) record(data []byte, root *jsonread.Node, pos *lint.LineIndex) {
	bad := func(ptr, format string, args ...any) {
		l, c := pos.Position(0)
		if n, _ := root.Nearest(ptr); n != nil {
			l, c = pos.Position(n.Offset)
		}
		s.report(generic.Transcript, l, c, ptr, format, args...)
	}
	f := recordFieldsOf(root)
	if v := f.aopkit.String(); v != "transcript/1" {
		bad("/aopkit", "unknown transcript version %q: aoplint reads \"transcript/1\"", v)
		return
	}
	md := meta{from: f.from.String(), session: f.session.String(), stream: f.stream.String()}
	if c := f.detail.Get("cut_off"); c != nil && c.Bool {
		md.cutOff = true
	}
	if _, ok := f.seq.Int(); !ok {
		bad("/seq", "record needs \"seq\", an integer")
	}
	switch md.from {
	case "agent", "orchestrator", "harness":
	default:
		bad("/from", "\"from\" must be agent, orchestrator or harness, not %q", md.from)
	}
	if at := f.at; at.IsString() {
		t, ok := isotime.ParseRFC3339(at.Str)
		if !ok {
			bad("/at", "\"at\" %q is not an RFC 3339 time", at.Str)
		}
		md.at = t
	} else {
		bad("/at", "record needs \"at\", an RFC 3339 time")
	}
	msg, text, event := f.msg, f.text, f.event
	n := 0
	for _, x := range []*jsonread.Node{msg, text, event} {
		if x != nil {
			n++
		}
	}
	if n != 1 {
		bad("", "a record holds exactly one of \"msg\", \"text\" and \"event\" (it holds %d)", n)
		return
	}
	hint := f.protocol.String()
	// A deliberately off-spec message of the harness, on whichever side it plays
	// (docs/transcript-format.md "Probes"), and binding control lines (task
	// scripts, executed-tool reports): not protocol messages, not linted as
	// such, but evidence for the sequence rules.
	probe := (md.from == "orchestrator" || md.from == "agent") && f.detail.Get("probe") != nil
	if probe || f.stream.String() == "control" {
		m := s.newMessage()
		*m = lint.Message{Path: s.path, Protocol: hint, Kind: "control", Root: msg, Raw: data, Pos: pos,
			From: md.from, At: md.at, Session: md.session, Stream: md.stream, Index: s.index, Opts: &s.opts.Options}
		s.out.harness = m
		return
	}
	switch {
	case msg != nil:
		s.message(msg, data, 0, pos, hint, md)
	case text != nil && md.stream == "stderr":
		// stderr is free under every binding: kept in the transcript, never judged.
		return
	case text != nil && notJSONFile(md.stream):
		// A file the party wrote that is not JSON by its name (an aop-output
		// details file in Markdown, a diff, a log: the spec's own table of task
		// types): kept in the transcript, not a stream of protocol lines.
		return
	case text != nil:
		l, c := pos.Position(text.Offset)
		tp := s.newIndex()
		*tp = lint.LineIndex{BaseLine: l, BaseCol: c, Flat: true}
		// The text's own bytes, not a copy: a string is never modified, and
		// nothing writes into a unit's bytes (the parser and the rules read them).
		str := text.String()
		raw := unsafe.Slice(unsafe.StringData(str), len(str))
		t := bytes.TrimLeft(raw, " \t\r\n")
		switch p := framedBy(t); {
		case p != nil:
			s.json(raw, len(raw)-len(t)+len(p.LinePrefix), tp, p.ID, md)
		case len(t) > 0 && (t[0] == '{' || (t[0] == '[' && opensArray(t) && !s.isText(raw))):
			// A line that opens like JSON is judged like the same bare line.
			s.json(raw, 0, tp, hint, md)
		default:
			s.textWithMeta(raw, tp, true, md, hint)
		}
	default:
		m := s.newMessage()
		*m = lint.Message{Path: s.path, Kind: harnessKind(f.event.String()), Root: root, Raw: data, Pos: pos,
			From: "harness", At: md.at, Session: md.session, Stream: md.stream, Index: s.index, Opts: &s.opts.Options}
		s.out.harness = m
	}
}

// notJSONFile reports whether a transcript stream is a file ("file:<path>")
// whose name does not say JSON (.json, .jsonl): only such a file's text is judged
// as protocol lines (docs/transcript-format.md "Records").
func notJSONFile(stream string) bool {
	p, ok := strings.CutPrefix(stream, "file:")
	if !ok {
		return false
	}
	p = strings.ToLower(p)
	return !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".jsonl")
}

// harnessKind is the Kind of a harness record of event e: "harness:" + e, made
// once for the events docs/transcript-format.md names (a concatenation per
// record was an allocation each).
func harnessKind(e string) string {
	if k, ok := harnessKinds[e]; ok {
		return k
	}
	return "harness:" + e
}

var harnessKinds = func() map[string]string {
	m := map[string]string{}
	for _, e := range []string{"agent-start", "timers-start", "agent-exit", "signal", "kill", "close-stdin", "timeout", "scenario-end", "decision"} {
		m[e] = "harness:" + e
	}
	return m
}()

// recordFields are the members of a transcript/1 record, read in one pass over
// its members (the last of a key winning, as with Get).
type recordFields struct {
	aopkit, from, session, stream, seq, at, msg, text, event, protocol, detail *jsonread.Node
}

func recordFieldsOf(root *jsonread.Node) recordFields {
	var f recordFields
	for i := range root.Members {
		m := &root.Members[i]
		switch m.Key {
		case "aopkit":
			f.aopkit = m.Value
		case "from":
			f.from = m.Value
		case "session":
			f.session = m.Value
		case "stream":
			f.stream = m.Value
		case "seq":
			f.seq = m.Value
		case "at":
			f.at = m.Value
		case "msg":
			f.msg = m.Value
		case "text":
			f.text = m.Value
		case "event":
			f.event = m.Value
		case "protocol":
			f.protocol = m.Value
		case "detail":
			f.detail = m.Value
		}
	}
	return f
}

// harnessEvent hands a harness record to every live checker (they may use agent
// exits and kills); it is no protocol message and gets no single-message rules.
func (s *stream) harnessEvent(u *unitOut) {
	m := u.harness
	sess := s.session(m.Session)
	if m.Protocol != "" {
		s.checkersFor(sess, m.Protocol)
	}
	switch {
	case len(sess.pending) >= maxPending:
	case s.pendingBytes+len(u.unit.src) > maxPendingBytes:
		if !s.pendingFull {
			s.pendingFull = true
			l, c := 1, 1
			if m.Pos != nil {
				l, c = m.Pos.Position(0)
			}
			s.report(generic.Size, l, c, "", "harness and control records held for the sessions' later protocols exceed %d MiB; from here on such records are not shown to checkers that start later", maxPendingBytes>>20)
		}
	default:
		if sess.pending == nil {
			sess.pending, sess.held = s.spare.pending, s.spare.held
			s.spare.pending, s.spare.held = nil, nil
		}
		sess.pending = append(sess.pending, u.heldIn(&sess.held))
		sess.pendingBytes += len(u.unit.src)
		s.pendingBytes += len(u.unit.src)
	}
	for _, pc := range sess.checkers {
		for _, ck := range pc.cks {
			s.observe(ck, m)
		}
	}
	if m.Kind == "harness:scenario-end" {
		// The session is over: finish its rules now and drop its state, so a
		// transcript of many sessions holds one session's state at a time.
		s.endSession(m.Session)
	}
}

// endSession finishes and forgets one session.
func (s *stream) endSession(key string) {
	sess, ok := s.sessions[key]
	if !ok {
		return
	}
	s.forgetSession(sess)
	s.finishSession(sess)
	s.recycle(sess)
	delete(s.sessions, key)
	for i, k := range s.order {
		if k == key {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// maxPending bounds the harness and control records kept per session for the
// checkers of a protocol whose first message comes later; maxPendingBytes bounds
// their bytes over all sessions.
const (
	maxPending      = 64
	maxPendingBytes = 8 << 20
	// maxSpareHeld bounds the held bytes kept from a finished session for the
	// next one.
	maxSpareHeld = 256 << 10
)

// checkersFor returns the session's checkers of a protocol, starting them (and
// showing them the harness and control records seen so far) on first use.
func (s *stream) checkersFor(sess *session, protocol string) []checker {
	// A linear search: a session sees one to five protocols (a binary search
	// with a comparison function cost 200 instructions a message).
	i := 0
	for ; i < len(sess.checkers); i++ {
		pc := &sess.checkers[i]
		if pc.protocol == protocol { // (equal lengths, then the same registered ID: no byte compared)
			return pc.cks
		}
		if pc.protocol > protocol {
			break
		}
	}
	rules := s.seqRulesFor(protocol)
	cks := s.takeCks(len(rules))
	for _, r := range rules {
		if r.Group != "" && slices.ContainsFunc(cks, func(ck checker) bool { return ck.rule.Group == r.Group }) {
			continue // one checker per group, made by its first rule
		}
		cks = append(cks, checker{rule: r, c: r.NewChecker()})
	}
	sess.checkers = slices.Insert(sess.checkers, i, protoCheckers{protocol: keptProtocol(protocol), cks: cks})
	for _, h := range sess.pending {
		m := s.rebuild(h)
		if m == nil {
			continue // unreachable: the same bytes build the same unit
		}
		for _, ck := range cks {
			s.observe(ck, m)
		}
	}
	if s.replay != nil {
		s.replay.mem.reset()
	}
	return cks
}

// takeCks returns an empty checker list with room for n, a spare one made for
// n (so for the same protocol) if it has one.
func (s *stream) takeCks(n int) []checker {
	for i, cks := range s.spareCks {
		if cap(cks) == n {
			last := len(s.spareCks) - 1
			s.spareCks[i] = s.spareCks[last]
			s.spareCks[last] = nil
			s.spareCks = s.spareCks[:last]
			return cks
		}
	}
	return make([]checker, 0, n)
}

// recycle keeps a finished session, emptied, for a new one.
func (s *stream) recycle(sess *session) {
	for _, pc := range sess.checkers {
		clear(pc.cks)
		if len(s.spareCks) < 4*maxFree { // up to five protocols a session
			s.spareCks = append(s.spareCks, pc.cks[:0])
		}
	}
	clear(sess.checkers)
	sess.checkers = sess.checkers[:0]
	if len(s.freeSessions) < maxFree {
		s.freeSessions = append(s.freeSessions, sess)
	}
}

// rebuild parses a held record again: the message it was when it was held. Its
// tree lives until the replay's arena is reset.
func (s *stream) rebuild(h heldRecord) *lint.Message {
	if s.replay == nil {
		s.replay = newMemBuilder(newUnitMem(), s.path, &s.opts, h.whole)
	}
	s.replay.whole = h.whole
	return s.replay.build(h.index, h.src, h.line, h.col).harness
}

// held returns what the ordered stage holds of u past its line: a copy of its
// bytes (built again by rebuild, or flushEarly).
func (u *unitOut) held() heldRecord {
	h := u.unit
	h.src = bytes.Clone(h.src)
	return h
}

// heldIn is held with the copy appended to *buf (the records held before stay
// valid: a grown buffer leaves them in the old one).
func (u *unitOut) heldIn(buf *[]byte) heldRecord {
	start := len(*buf)
	*buf = append(*buf, u.unit.src...)
	h := u.unit
	h.src = (*buf)[start:len(*buf):len(*buf)]
	return h
}

// isText reports whether a protocol's text detector claims data (an aop-output
// report starts with "[AOP:", which is no JSON array).
func (s *builder) isText(data []byte) bool { return s.detectText(data).proto != nil }

// textDetection is the text detectors' verdict on one text.
type textDetection struct {
	data          []byte // the text judged (its first byte and length)
	proto         *lint.Protocol
	kind, dialect string
	parsed        any
}

// detectText runs the text detectors over data, the most confident one winning.
// The last verdict is kept for the unit (a text is first asked whether it is
// text, then linted as text: it is parsed once).
func (s *builder) detectText(data []byte) textDetection {
	if c := &s.text; c.data != nil && len(c.data) == len(data) && unsafe.SliceData(c.data) == unsafe.SliceData(data) {
		return *c
	}
	det, bestConf := textDetection{data: data}, 0
	for _, p := range lint.Protocols() {
		if p.DetectText == nil || (s.opts.Protocol != "" && s.opts.Protocol != p.ID) {
			continue
		}
		var k, d string
		var c int
		var parsed any
		if p.ParseText != nil {
			k, d, c, parsed = p.ParseText(data)
		} else {
			k, d, c = p.DetectText(data)
		}
		if c > bestConf {
			det.proto, det.kind, det.dialect, det.parsed, bestConf = p, k, d, parsed, c
		}
	}
	if len(data) > 0 {
		s.text = det
	}
	return det
}

func (s *builder) textWithMeta(data []byte, pos *lint.LineIndex, inStream bool, md meta, hint string) {
	if det := s.detectText(data); det.proto != nil {
		m := s.newMessage()
		*m = lint.Message{Path: s.path, Protocol: det.proto.ID, Kind: det.kind, Dialect: det.dialect, Raw: data, Pos: pos,
			Index: s.index, From: md.from, At: md.at, Session: md.session, Stream: md.stream, CutOff: md.cutOff, Opts: &s.opts.Options,
			Parsed: det.parsed}
		s.run(m)
		return
	}
	l, c := pos.Position(0)
	if inStream {
		proto := s.opts.Protocol
		if proto == "" {
			proto = hint
		}
		s.out.logLine = &logLine{line: l, col: c, hint: proto, excerpt: excerpt(data)}
		return
	}
	switch lower, tag := lowerMarker(data), logTag(data); {
	case lower != "":
		s.report(generic.Unstructured, l, c, "", "the text has AOP markers that are not upper case (%s): the spec's markers are [AOP:START], [AOP:TASK], [AOP:SUMMARY], [AOP:DETAILS_FILE], [AOP:STATUS], [AOP:END] and its parser matches them exactly, so no parent recognises this report; write them in upper case (UNSTRUCTURED)", lower)
	case tag != "":
		s.report(generic.Unstructured, l, c, "", "the input reads like log output (it starts with %s), not JSON and not an aop-output report: no protocol recognised; logs go to stderr or a log file, not where protocol messages are read (UNSTRUCTURED)", tag)
	default:
		s.report(generic.Unstructured, l, c, "", "the input is not JSON and not an aop-output report: no protocol recognised (UNSTRUCTURED, E_PARSE_FAILURE)")
	}
}

// opensArray reports whether t, which starts with '[', opens a JSON array: the
// next byte after blanks opens a JSON value or closes the array. A log line's
// "[agent] ..." or "[INFO] ..." and a marker such as "[aop:start]" do not, and
// are text.
func opensArray(t []byte) bool {
	r := bytes.TrimLeft(t[1:], " \t\r\n")
	if len(r) == 0 {
		return true
	}
	switch c := r[0]; {
	case c == '{' || c == '[' || c == '"' || c == ']' || c == '-' || c >= '0' && c <= '9':
		return true
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(r, []byte(lit)) && (len(r) == len(lit) || !isWordByte(r[len(lit)])) {
				return true
			}
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// lowerMarker returns the first AOP marker of data that is not all upper case
// at the start of a line ("[aop:start]", "[Aop:Summary]"), quoted; "" when none.
func lowerMarker(data []byte) string {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimLeft(line, " \t\r")
		if len(line) < 6 || line[0] != '[' || !bytes.EqualFold(line[1:5], []byte("aop:")) {
			continue
		}
		end := bytes.IndexByte(line, ']')
		if end < 0 {
			continue
		}
		if m := line[:end+1]; !bytes.Equal(m, bytes.ToUpper(m)) {
			return fmt.Sprintf("%q", m)
		}
	}
	return ""
}

// logTag returns the bracketed tag a log line starts with ("[agent]",
// "[INFO]"), quoted; "" when data does not start so.
func logTag(data []byte) string {
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) < 3 || t[0] != '[' {
		return ""
	}
	end := bytes.IndexByte(t, ']')
	if end < 2 || end > 40 {
		return ""
	}
	for _, c := range t[1:end] {
		if !isWordByte(c) && c != '.' && c != ' ' {
			return ""
		}
	}
	return fmt.Sprintf("%q", t[:end+1])
}

func excerpt(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q...", b[:60])
	}
	return fmt.Sprintf("%q", b)
}

// message detects the protocol of a parsed JSON message and lints it.
func (s *builder) message(root *jsonread.Node, data []byte, start int, pos *lint.LineIndex, hint string, md meta) {
	name := ""
	if s.whole {
		name = s.path
	}
	var proto *lint.Protocol
	kind, dialect := "", ""
	forced := s.opts.Protocol
	if forced == "" && framing(hint) {
		forced = hint // the line's prefix (AOF/1) says it
	}
	if forced != "" {
		proto = lint.LookupProtocol(forced)
		if proto != nil && proto.Detect != nil {
			kind, dialect, _ = proto.Detect(root, name)
		}
	} else {
		best := 0
		for _, p := range lint.Protocols() {
			if p.Detect == nil {
				continue
			}
			k, d, c := p.Detect(root, name)
			if c > best {
				best, proto, kind, dialect = c, p, k, d
			}
			if best >= 100 {
				break // certain (lint.Protocol.Detect): no later detector can be more confident
			}
		}
	}
	l, c := pos.Position(start + root.Offset)
	if proto == nil {
		s.out.notMessage = !s.whole
		if generic.IsJSONSchema(root) {
			s.report(generic.Unstructured, l, c, "", "the JSON value is a JSON Schema document (\"$schema\", or a \"type\" such as \"object\" with \"properties\"), not a message of %s: aoplint lints messages, not their schemas (UNSTRUCTURED; --unrecognised skip passes over such files)", lint.ProtocolNames("or"))
			return
		}
		s.report(generic.Unstructured, l, c, "", "JSON value is no message of %s (UNSTRUCTURED); use --protocol to force one", lint.ProtocolNames("or"))
		return
	}
	raw, rawAt := data[start:], 0
	if root.End > 0 && start+root.End <= len(data) {
		raw, rawAt = data[start+root.Offset:start+root.End], root.Offset
	}
	m := s.newMessage()
	*m = lint.Message{Path: s.path, Protocol: proto.ID, Kind: kind, Dialect: dialect, Root: root, Raw: raw, RawAt: rawAt,
		Pos: s.shiftIndex(pos, start), Index: s.index, From: md.from, At: md.at, Session: md.session, Stream: md.stream, CutOff: md.cutOff, Opts: &s.opts.Options}
	s.run(m)
}

// shiftIndex returns a LineIndex for offsets counted from start.
func (s *builder) shiftIndex(pos *lint.LineIndex, start int) *lint.LineIndex {
	if start == 0 {
		return pos
	}
	l, c := pos.Position(start)
	out := s.newIndex()
	if pos.Flat {
		*out = lint.LineIndex{BaseLine: l, BaseCol: c, Flat: true}
		return out
	}
	pos.ShiftTo(out, start)
	return out
}

// run applies the single-message rules of the message's protocol and kind.
func (s *builder) run(m *lint.Message) {
	s.out.msg = m
	rs := s.rulesFor(m.Protocol, m.Kind)
	for i := 0; i < len(rs.single); {
		i = s.runFrom(rs.single, false, i, m)
	}
	for i := 0; i < len(rs.schema); {
		i = s.runFrom(rs.schema, true, i, m)
	}
	clear(s.claimed)
	s.claimed = s.claimed[:0]
}

// runFrom runs rules[i:] on m and keeps what they report (keep), as safeRun
// would run each, with one deferred recover for them all instead of one per
// rule: a rule that panics is reported as an internal error (its diagnostics so
// far kept) and runFrom returns the index after it, for run to go on from.
func (s *builder) runFrom(rules []*lint.Rule, schema bool, i int, m *lint.Message) (next int) {
	p := &s.pass
	defer func() {
		if r := recover(); r != nil {
			p.ReportSevf(lint.Error, "", "internal error in rule %s: %v (please report this)", p.Rule.ID, r)
			s.keep(p, schema)
			next = i + 1
		}
	}()
	for ; i < len(rules); i++ {
		p.Reset(rules[i], m)
		rules[i].Run(p)
		s.keep(p, schema)
	}
	return i
}

// keep adds what a rule reported: a single-message rule's diagnostics and the
// pointers it claimed; a schema rule's diagnostics but those at a claimed
// pointer (a precise rule said it first).
func (s *builder) keep(p *lint.Pass, schema bool) {
	ds := p.Diagnostics()
	if !schema {
		// Most rules report nothing: no append at all then (73 instructions a
		// rule, mostly the empty appends' bookkeeping).
		if len(ds) > 0 {
			s.add(ds...)
		}
		if cl := p.Claimed(); len(cl) > 0 {
			s.claimed = append(s.claimed, cl...)
		}
		return
	}
	for _, d := range ds {
		if !lint.IsClaimed(s.claimed, d.Pointer) {
			s.add(d)
		}
	}
}

// apply takes one unit's result, in input order: its diagnostics, the stream's
// bookkeeping, and the sequence rules.
func (s *stream) apply(u unitOut) {
	if s.marks != nil && !u.noMarker {
		s.marks.see(u.unit.src, u.unit.line)
	}
	s.messages++
	if s.first == "" && s.opts.Protocol == "" && len(s.early) < maxEarly &&
		((u.logLine != nil && u.logLine.hint == "") || (u.notMessage && u.proto == "")) {
		s.early = append(s.early, u.held())
		return
	}
	s.applyUnit(u)
}

// maxEarly bounds the lines held before a stream's first message.
const maxEarly = 1024

// flushEarly judges the lines held before the first message, now that the
// stream's protocol is known (or, at the end, known to be none).
func (s *stream) flushEarly() {
	early := s.early
	s.early = nil
	for _, h := range early {
		if s.earlyB == nil {
			s.earlyB = newMemBuilder(newUnitMem(), s.path, &s.opts, h.whole)
		}
		// The held line built again: the same bytes build the same unit.
		s.earlyB.whole = h.whole
		s.applyUnit(s.earlyB.build(h.index, h.src, h.line, h.col))
		s.earlyB.mem.reset()
	}
}

func (s *stream) applyUnit(u unitOut) {
	line := s.line
	s.line = u.unit.src
	defer func() { s.line = line }()
	if p := logLines(s.streamProtocol(u.proto)); u.notMessage && p != nil && len(u.diags) > 0 {
		d := u.diags[0]
		s.add(lint.Diagnostic{Rule: generic.LogLine.ID, Severity: lint.Info, Spec: generic.LogLine.Spec, Line: d.Line, Column: 1,
			Message: "line is not an " + p.ID + " message (" + d.Message + "); treated as log output (" + p.LogLines + ")"})
		return
	}
	s.add(u.diags...)
	if u.logLine != nil {
		ll := u.logLine
		if p := logLines(s.streamProtocol(ll.hint)); p != nil {
			s.add(lint.Diagnostic{Rule: generic.LogLine.ID, Severity: lint.Info, Spec: generic.LogLine.Spec, Line: ll.line, Column: ll.col,
				Message: "non-JSON line treated as log output (" + p.LogLines + ")"})
		} else {
			s.report(generic.LogLine, ll.line, ll.col, "", "line is not JSON: %s (E_PARSE_FAILURE; only %s streams may carry log lines)", ll.excerpt, logLineProtocols())
		}
	}
	if u.harness != nil {
		s.harnessEvent(&u)
	}
	if u.proto != "" {
		s.sawProtocol(u.proto)
	}
	m := u.msg
	if m == nil {
		return
	}
	s.sawProtocol(m.Protocol)
	if s.first == "" {
		s.first = m.Protocol
		s.flushEarly()
	}
	if s.messages == 1 {
		s.kind = strings.Clone(m.Kind) // kept past the line; result reads it for a lone message
	}
	seq := s.seqRulesFor(m.Protocol)
	if len(seq) == 0 {
		return
	}
	for _, ck := range s.checkersFor(s.session(m.Session), m.Protocol) {
		s.observe(ck, m)
	}
}

// observe shows m to one checker and keeps what it reports.
func (s *stream) observe(ck checker, m *lint.Message) {
	p := &s.pass
	p.Reset(ck.rule, m)
	safeRun(p, ck.c.Observe)
	s.add(p.Diagnostics()...)
}

// streamProtocol is the protocol a line belongs to when it cannot tell by itself:
// the forced one, the one its framing names, or the stream's first.
func (s *stream) streamProtocol(hint string) string {
	switch {
	case s.opts.Protocol != "":
		return s.opts.Protocol
	case hint != "":
		return hint
	}
	return s.first
}

// safeRun runs a rule, turning a panic into an internal-error diagnostic: a bug in
// one rule must not lose the other diagnostics.
func safeRun(p *lint.Pass, f func(*lint.Pass)) {
	defer func() {
		if r := recover(); r != nil {
			p.ReportSevf(lint.Error, "", "internal error in rule %s: %v (please report this)", p.Rule.ID, r)
		}
	}()
	f(p)
}

func (s *stream) session(key string) *session {
	if s.lastSess != nil && key == s.lastKey {
		return s.lastSess
	}
	if sess, ok := s.sessions[key]; ok {
		s.lastKey, s.lastSess = sess.key, sess // its own key, not key: a string of a line
		return sess
	}
	if len(s.order) >= MaxSessions {
		oldest := s.order[0]
		s.order = s.order[1:]
		old := s.sessions[oldest]
		s.forgetSession(old)
		s.finishSession(old)
		s.recycle(old)
		delete(s.sessions, oldest)
	}
	var sess *session
	if n := len(s.freeSessions); n > 0 {
		sess = s.freeSessions[n-1]
		s.freeSessions[n-1] = nil
		s.freeSessions = s.freeSessions[:n-1]
	} else {
		sess = &session{}
	}
	key = strings.Clone(key) // the key is kept: it must not pin its message's line
	s.sessions[key] = sess
	s.order = append(s.order, key)
	sess.key = key
	s.lastKey, s.lastSess = key, sess
	return sess
}

// forgetSession empties the last-hit cache of session when it holds sess (ended
// or evicted: the session is recycled for another key).
func (s *stream) forgetSession(sess *session) {
	if s.lastSess == sess {
		s.lastKey, s.lastSess = "", nil
	}
}

func (s *stream) finishSession(sess *session) {
	s.pendingBytes -= sess.pendingBytes
	if cap(sess.held) <= maxSpareHeld && cap(sess.held) > cap(s.spare.held) {
		clear(sess.pending) // no references into held: it is written again
		poisonLine(sess.held)
		s.spare.pending, s.spare.held = sess.pending[:0], sess.held[:0]
	}
	sess.pendingBytes, sess.pending, sess.held = 0, nil, nil
	for _, pc := range sess.checkers {
		for _, ck := range pc.cks {
			p := &s.pass
			p.Reset(ck.rule, nil)
			safeRun(p, ck.c.Finish)
			ds := p.Diagnostics()
			for i := range ds {
				ds[i].Path = s.path
			}
			s.add(ds...)
		}
	}
}

func (s *stream) finish() {
	s.flushEarly()
	for _, key := range s.order {
		s.finishSession(s.sessions[key])
	}
	s.sessions = map[string]*session{}
	s.order = nil
	s.lastKey, s.lastSess = "", nil
}

// seqSets caches the sequence rules of each protocol.
var seqSets sync.Map // protocol → []*lint.Rule

func seqRulesFor(protocol string) []*lint.Rule {
	if rs, ok := seqSets.Load(protocol); ok {
		return rs.([]*lint.Rule)
	}
	var rs []*lint.Rule
	for _, r := range lint.Rules() {
		if r.NewChecker != nil && !r.Retired && r.Protocol == protocol {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
	actual, _ := seqSets.LoadOrStore(keptProtocol(protocol), rs)
	return actual.([]*lint.Rule)
}

// maxCachedKinds bounds the rule sets a builder or a stream caches (the input
// names the kinds).
const maxCachedKinds = 256

// kindRules are a protocol's rule sets by message kind.
type kindRules struct {
	protocol string
	kinds    map[string]*ruleSet
}

// rulesFor is the package's rulesFor, cached in the builder.
func (s *builder) rulesFor(protocol, kind string) *ruleSet {
	// The recent rule sets first, one slot per hash of the kind's length and
	// end bytes (most transcripts use a few kinds of a few protocols): two
	// string comparisons, no hash of the kind (the map's lookup cost about 150
	// instructions a message).
	slot := &s.recent[recentSlot(kind)]
	if slot.rs != nil && slot.kind == kind && slot.protocol == protocol {
		return slot.rs
	}
	rs := s.rulesForMap(protocol, kind)
	*slot = recentRules{protocol: rs.protocol, kind: rs.kind, rs: rs}
	return rs
}

// recentSlot is kind's slot in builder.recent.
func recentSlot(kind string) int {
	h := len(kind)
	if h > 0 {
		h += int(kind[0])*3 + int(kind[h-1])*5
	}
	return h & (recentSlots - 1)
}

// recentSlots is the size of builder.recent (a power of two).
const recentSlots = 16

// recentRules is a slot of builder.recent: a rule set and its protocol and
// kind, owned (not strings of a line).
type recentRules struct {
	protocol, kind string
	rs             *ruleSet
}

// rulesForMap is rulesFor by the builder's maps.
func (s *builder) rulesForMap(protocol, kind string) *ruleSet {
	i := 0
	for ; i < len(s.rules); i++ {
		if s.rules[i].protocol == protocol {
			if rs, ok := s.rules[i].kinds[kind]; ok {
				return rs
			}
			break
		}
	}
	rs := rulesFor(protocol, kind)
	if s.nRules >= maxCachedKinds {
		return rs
	}
	if i == len(s.rules) {
		s.rules = append(s.rules, kindRules{keptProtocol(protocol), map[string]*ruleSet{}})
	}
	// A kind may be a substring of the message's line: the key is a copy.
	s.rules[i].kinds[strings.Clone(kind)] = rs
	s.nRules++
	return rs
}

// sawProtocol adds p, a protocol's own ID (not a string of a line), to the
// protocols the stream saw; the last one is checked first (no map assignment
// per message).
func (s *stream) sawProtocol(p string) {
	if p != s.lastProto {
		s.protos[p] = true
		s.lastProto = p
	}
}

// protoRules are the sequence rules of one protocol.
type protoRules struct {
	protocol string
	rules    []*lint.Rule
}

// seqRulesFor is the package's seqRulesFor, cached in the stream.
func (s *stream) seqRulesFor(protocol string) []*lint.Rule {
	for i := range s.seqRules {
		if s.seqRules[i].protocol == protocol {
			return s.seqRules[i].rules
		}
	}
	rs := seqRulesFor(protocol)
	if len(s.seqRules) < maxCachedProtocols {
		s.seqRules = append(s.seqRules, protoRules{keptProtocol(protocol), rs})
	}
	return rs
}

// keptProtocol is a protocol name as the driver keeps it past its line: the
// registered protocol's own string, or a copy (a harness record names its
// protocol with a string of its line).
func keptProtocol(protocol string) string {
	if p := lint.LookupProtocol(protocol); p != nil {
		return p.ID
	}
	return strings.Clone(protocol)
}

// maxCachedProtocols bounds the protocols a stream caches sequence rules for
// (harness records name theirs).
const maxCachedProtocols = 16
