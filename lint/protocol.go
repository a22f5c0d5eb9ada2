package lint

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// Protocol describes one protocol to the linter.
type Protocol struct {
	ID    string   // "aop2"
	Name  string   // "AOP JSON v2 (Cyclops 2.0.2-C)"
	Spec  string   // spec document: "aop2-orchestration-json-v2.0.2-C"
	Kinds []string // every message kind, for `aoplint protocols`

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
}

var (
	protoMu sync.Mutex // serialises registrations
	// protoList is the registered protocols sorted by ID, replaced (never
	// changed) on registration: read on every message without a lock.
	protoList atomic.Pointer[[]*Protocol]
)

// RegisterProtocol adds a protocol; a duplicate ID panics.
func RegisterProtocol(p *Protocol) {
	protoMu.Lock()
	defer protoMu.Unlock()
	if LookupProtocol(p.ID) != nil {
		panic("lint: duplicate protocol " + p.ID)
	}
	list := append(slices.Clone(Protocols()), p)
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	protoList.Store(&list)
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
