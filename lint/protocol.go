package lint

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// Protocol describes one protocol to the linter: the lint-level descriptor.
// Each protocol's package (lint/<protocol>) exports its value as Protocol, and
// one explicit list (lint/all.Protocols) names them all; everything the linter,
// discovery, suppressions and the command line enumerate is derived from the
// registered list, never from protocol IDs written out by hand. The
// conformance side's descriptor (conform/protocols) embeds this one.
type Protocol struct {
	ID    string   // "aop2"
	Name  string   // "AOP JSON v2 (Cyclops 2.0.2-C)"
	Spec  string   // spec document and version: "aop2-orchestration-json-v2.0.2-C"
	Kinds []string // every message kind, for `aoplint protocols`
	// SpecFile is the spec's text in the shared specification directory
	// (docs/specs.md): "aop2-orchestration-json-v2.0.2-C.md"; Version the
	// version it specifies ("" when the text has none).
	SpecFile, Version string

	// Detect looks at a parsed JSON value and says how sure it is that the value is
	// a message of this protocol (0: not at all; 100: certain), with the kind ("" when
	// it is this protocol's but of no known kind) and any upstream dialect. name is
	// the file's path when the value is a whole file ("" in a stream): AOF run
	// artifacts are known by their file names.
	Detect func(root *jsonread.Node, name string) (kind, dialect string, confidence int)

	// DetectText, if set, looks at text that is not JSON (aop-output reports).
	DetectText func(text []byte) (kind, dialect string, confidence int)
	// ParseText, if set, is DetectText that also returns what it parsed of the
	// text: the driver keeps it as the message's Parsed, so the rules do not
	// parse the text again.
	ParseText func(text []byte) (kind, dialect string, confidence int, parsed any)

	// Schema names the schema file (within package schemas' FS) for a kind, or "".
	Schema func(kind string) string

	// MatchDir, if set, recognises a directory the protocol lints as a whole
	// (an AOF data directory), and LintDir lints it: every file through
	// lintFile (the driver's, with the run's options), then the rules across
	// files. The driver calls them; the results are sorted by path.
	MatchDir func(dir string) bool
	LintDir  func(dir string, lintFile FileLinter) ([]FileReport, error)

	// Markers are the top-level members that mark a JSON object as a message of
	// the protocol, for file discovery (lint/discover): a file whose head
	// carries no protocol's marker is no protocol file.
	Markers []Marker
	// MarkObject, if set, marks an object that carries no protocol's Markers
	// (a weaker sign, tried after every protocol's Markers).
	MarkObject func(obj *jsonread.Node) bool
	// MarkText, if set, marks text that is not valid JSON (a broken message),
	// tried after every protocol's Markers as quoted keys.
	MarkText func(text []byte) bool

	// LinePrefix, if set, frames a line of a stream as a message of the
	// protocol: the prefix, then the JSON ("AOF/1 "). A line with the prefix
	// and broken JSON is still the protocol's.
	LinePrefix string
	// LogLines, if set, lets the protocol's streams carry lines that are not
	// JSON, as log output: the spec's words that allow it, cited in the
	// diagnostic (info, not an error).
	LogLines string

	// TextDirectives marks a protocol whose text messages (DetectText) may
	// carry "aoplint:ignore" lines as suppressions.
	TextDirectives bool

	// Extensions are the members whose object value the protocol leaves open
	// to extension keys, where an inline suppression (x_aoplint_ignore) is
	// legal (lint/suppress).
	Extensions []string
	// ExtensionsAt, if set, limits the objects (by JSON Pointer) whose
	// Extensions members are containers; nil: anywhere.
	ExtensionsAt func(ptr string) bool
}

// Marker is a top-level member that marks a JSON object as a message of a
// protocol (Protocol.Markers).
type Marker struct {
	Key   string
	Value string // "": any value; else the member's value must be this string
}

var (
	protoMu sync.Mutex // serialises registrations
	// protoList is the registered protocols sorted by ID, replaced (never
	// changed) on registration: read on every message without a lock.
	protoList atomic.Pointer[[]*Protocol]
	// protoOrder is the registered protocols in the order they were
	// registered (the list's: lint/all.Protocols).
	protoOrder atomic.Pointer[[]*Protocol]
)

// RegisterProtocol adds a protocol. Registering the same value again does
// nothing (a protocol's own tests may register it beside the list); another
// value with a registered ID panics.
func RegisterProtocol(p *Protocol) {
	protoMu.Lock()
	defer protoMu.Unlock()
	if q := LookupProtocol(p.ID); q == p {
		return
	} else if q != nil {
		panic("lint: duplicate protocol " + p.ID)
	}
	list := append(slices.Clone(Protocols()), p)
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	order := append(slices.Clone(ListedProtocols()), p)
	protoOrder.Store(&order)
	protoList.Store(&list)
}

// ListedProtocols returns the registered protocols in the order they were
// registered: the list's order, the one help texts and messages name them in.
// The slice is shared: callers must not modify it.
func ListedProtocols() []*Protocol {
	if l := protoOrder.Load(); l != nil {
		return *l
	}
	return nil
}

// ProtocolIDs returns the IDs of the registered protocols, sorted.
func ProtocolIDs() []string { return ids(Protocols()) }

// ListedProtocolIDs returns the IDs of ListedProtocols, in the list's order.
func ListedProtocolIDs() []string { return ids(ListedProtocols()) }

func ids(ps []*Protocol) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// ProtocolNames names the IDs of ListedProtocols in prose: "a, b or c"
// (conj "or"), "a, b and c" (conj "and").
func ProtocolNames(conj string) string {
	return JoinWords(ListedProtocolIDs(), conj)
}

// JoinWords joins words in prose: "a", "a or b", "a, b or c".
func JoinWords(words []string, conj string) string {
	switch n := len(words); n {
	case 0:
		return ""
	case 1:
		return words[0]
	default:
		return strings.Join(words[:n-1], ", ") + " " + conj + " " + words[n-1]
	}
}

// Protocols returns the registered protocols sorted by ID. The slice is shared:
// callers must not modify it.
func Protocols() []*Protocol {
	if l := protoList.Load(); l != nil {
		return *l
	}
	return nil
}

// LookupProtocol finds a protocol by ID: a scan of the few registered (a lock
// and a map lookup cost 180 instructions a message).
func LookupProtocol(id string) *Protocol {
	for _, p := range Protocols() {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// KindMemo remembers the non-empty answers of a function of a message kind (a
// protocol's schema file): the function runs once per kind that has an answer,
// not once per message. Kinds without one (no schema) are not kept, so
// arbitrary kinds from the input cannot grow it; nor are more than
// maxMemoKinds (a protocol has a few kinds: past that, F answers each time).
//
// The answers are an immutable list behind an atomic pointer: a lookup scans
// it without a lock (a few string compares, most of them on the length alone),
// and a new answer replaces the list with a longer copy under mu.
type KindMemo struct {
	F     func(kind string) string
	mu    sync.Mutex                   // serializes the writers of known
	known atomic.Pointer[[]kindAnswer] // read without a lock
}

// kindAnswer is one kind KindMemo remembers, with F's answer.
type kindAnswer struct{ kind, answer string }

// maxMemoKinds bounds the kinds a KindMemo keeps (and so its scan).
const maxMemoKinds = 64

// Get returns F(kind).
func (km *KindMemo) Get(kind string) string {
	if known := km.known.Load(); known != nil {
		for i := range *known {
			if e := &(*known)[i]; e.kind == kind {
				return e.answer
			}
		}
	}
	v := km.F(kind)
	if v != "" {
		km.keep(kind, v)
	}
	return v
}

// keep adds kind's answer v to the list, unless it is there or full.
func (km *KindMemo) keep(kind, v string) {
	km.mu.Lock()
	defer km.mu.Unlock()
	var old []kindAnswer
	if known := km.known.Load(); known != nil {
		old = *known
	}
	if len(old) >= maxMemoKinds {
		return
	}
	for _, e := range old {
		if e.kind == kind {
			return // another goroutine kept it meanwhile
		}
	}
	// The key is kept: a copy, not a string of a line the driver reuses.
	next := append(old[:len(old):len(old)], kindAnswer{strings.Clone(kind), v})
	km.known.Store(&next)
}
