// Package lint holds the vocabulary of aoplint: severities, diagnostics, rules and
// their registry, messages and the pass through which a rule reports.
//
// Rules live in one package per protocol (lint/aop2, lint/aos, lint/aopoutput,
// lint/aof, lint/orchmsg) and register themselves from init; lint/linter drives
// them over files and streams; lint/output prints the results.
package lint

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// MaxMessage bounds one message: a line of a stream (with its newline, at most
// MaxMessage+1 bytes), or a whole single-message file. Larger ones are reported
// (GEN-SIZE-001) and skipped, never held in memory; inline suppressions in them
// are not read either.
const MaxMessage = 16 << 20

// Severity of a diagnostic.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	default:
		return "info"
	}
}

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "error":
		return Error, nil
	case "warning", "warn":
		return Warning, nil
	case "info":
		return Info, nil
	}
	return Info, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

func (s *Severity) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	v, err := ParseSeverity(str)
	*s = v
	return err
}

// Related is another place a diagnostic refers to: for a sequence rule, the earlier
// message that makes this one wrong (the witness).
type Related struct {
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line"`
	Column  int    `json:"column,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
}

// Diagnostic is one finding.
type Diagnostic struct {
	Path     string    `json:"-"`
	Rule     string    `json:"rule"`
	Severity Severity  `json:"severity"`
	Message  string    `json:"message"`
	Line     int       `json:"line"`
	Column   int       `json:"column"`
	Pointer  string    `json:"pointer"`
	Spec     string    `json:"spec"`
	Related  []Related `json:"related,omitempty"`
	// Measured and Limit are a timing rule's measurement and the limit it was
	// judged against (zero Limit: none), for aopconform's margins (how far over
	// the limit a failure was); not part of any output format.
	Measured time.Duration `json:"-"`
	Limit    time.Duration `json:"-"`
}

// SortDiagnostics orders diagnostics by path, line, column, rule, message.
func SortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}

// Rule is one check with a stable ID.
type Rule struct {
	ID       string   // stable: "AOF-ENV-003"
	Title    string   // short, lowercase: "taskId format"
	Protocol string   // a protocol's ID (lint.Protocol.ID: "aop2", ...); "" for every protocol
	Kinds    []string // message kinds it looks at; empty for all kinds of its protocol
	Severity Severity // default severity of its diagnostics
	Spec     string   // the section it enforces: "aof-1 §Envelope Fields"
	Doc      string   // explanation
	Bad      string   // an example that breaks the rule
	Good     string   // the same example, fixed
	// Requires lists the IDs of the requirements (conform/requirements) the rule
	// enforces, when it cites them itself; the registry's gate fails on an ID it
	// does not hold.
	Requires []string

	// Run checks one message (single-message rules).
	Run func(*Pass)
	// Schema marks a schema-validation rule: it runs after the other single-message
	// rules of the message, and its diagnostics at pointers those rules claimed
	// (Pass.Claim) are dropped, so a precise diagnostic replaces a generic one.
	Schema bool
	// NewChecker starts the state of a sequence rule for one stream.
	NewChecker func() Checker
	// Group names a set of sequence rules of one protocol that share one Checker:
	// the driver makes it with the NewChecker of the group's first rule (by ID) and
	// calls it once per message; it reports under each rule with Pass.As. Rules that
	// track the same state (open requests, live tasks) keep it once, not per rule.
	Group string

	// Replacement names the rule that replaced a retired one; retired rules never run.
	Retired     bool
	Replacement string
}

// Checker is the per-stream state of a sequence rule. Observe sees every message of
// the stream in order; Finish is called once at the end of the stream (p.Msg is nil
// there). Its memory must be bounded by the stream's open state, not its length.
type Checker interface {
	Observe(p *Pass)
	Finish(p *Pass)
}

// AppliesTo reports whether the rule looks at a message of protocol and kind.
func (r *Rule) AppliesTo(protocol, kind string) bool {
	if r.Retired {
		return false
	}
	if r.Protocol != "" && r.Protocol != protocol {
		return false
	}
	if len(r.Kinds) == 0 {
		return true
	}
	for _, k := range r.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

var (
	regMu  sync.Mutex
	sorted []*Rule // every registered rule, by ID (no map: filling one cost every run ~300 inserts)
	next   int     // where the last registered rule went, plus one: a package registers its rules in ID order
)

// Register adds rules to the registry. A duplicate ID panics: it is a programming
// error that any test catches.
func Register(rs ...*Rule) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, r := range rs {
		// Kept sorted as rules come (in ID order, mostly: an append), so that no
		// run sorts the whole registry.
		i := next
		if i > len(sorted) || (i > 0 && sorted[i-1].ID >= r.ID) || (i < len(sorted) && sorted[i].ID <= r.ID) {
			i = search(r.ID) // not right after the last one
		}
		if i < len(sorted) && sorted[i].ID == r.ID {
			panic("lint: duplicate rule ID " + r.ID)
		}
		sorted = append(sorted, nil)
		copy(sorted[i+1:], sorted[i:])
		sorted[i] = r
		next = i + 1
	}
}

// Rules returns every registered rule, sorted by ID.
func Rules() []*Rule {
	regMu.Lock()
	defer regMu.Unlock()
	return append([]*Rule(nil), sorted...)
}

// search returns the position of id in sorted: where it is, or would be inserted.
func search(id string) int {
	if n := len(sorted); n == 0 || sorted[n-1].ID < id {
		return n
	}
	return sort.Search(len(sorted), func(i int) bool { return sorted[i].ID >= id })
}

// LookupRule finds a rule by ID (case-insensitive).
func LookupRule(id string) *Rule {
	regMu.Lock()
	defer regMu.Unlock()
	if i := search(id); i < len(sorted) && sorted[i].ID == id {
		return sorted[i]
	}
	for _, r := range sorted {
		if strings.EqualFold(r.ID, id) {
			return r
		}
	}
	return nil
}
