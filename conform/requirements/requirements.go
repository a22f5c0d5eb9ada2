// Package requirements is the registry of what the five specifications require:
// every requirement one entry (an ID, the section, the sentence or table row
// quoted from the spec, its level, the side it binds) and what enforces it — lint
// rules, agent-side and orchestrator-side conformance checks — or the reason it is
// waived. The data lives in data/<protocol>.json (embedded); Gate joins it to the
// rules and checks that exist and to the evidence that each of them can fail.
//
// The package depends on nothing but the standard library: aoplint, aopconform and
// their reports can all name the registry and its digest.
package requirements

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

//go:embed data/*.json
var dataFS embed.FS

// Levels and sides.
const (
	MUST   = "MUST"
	SHOULD = "SHOULD"
	MAY    = "MAY"

	AsWritten = "as_written" // the spec says MUST/SHOULD/MAY in so many words
	Implied   = "implied"    // implied by "required", a limit, a table, an enum, an example

	SideAgent        = "agent"
	SideOrchestrator = "orchestrator"
	SideMessage      = "message" // the shape of a message, whoever sends it
)

// Requirement is one requirement of a spec, as the registry's data holds it and
// as `aopconform coverage --format json` prints it (rules and checks never null
// there, see WriteJSON).
type Requirement struct {
	ID          string `json:"id"` // "aop2/§6.1/heartbeat-interval", stable
	Protocol    string `json:"protocol"`
	Section     string `json:"section"`
	Level       string `json:"level"`
	LevelSource string `json:"level_source"`
	Side        string `json:"side"`
	// Text is quoted verbatim from the spec: a sentence, a table row, a line of an
	// example or template.
	Text string `json:"text"`
	// Rules are lint rule IDs, Checks conformance check IDs (agent side and
	// orchestrator side: /orch/ in the ID) that enforce it.
	Rules  []string `json:"rules"`
	Checks []string `json:"checks"`
	// Waiver is why nothing enforces it. A waiver that starts with "gap:" is no
	// excuse but a known gap: testable, and not tested yet (reported as such).
	Waiver string `json:"waiver"`
	// Note says how the enforcers read the requirement, where it is not obvious.
	Note string `json:"note,omitempty"`
}

// Enforced reports whether a rule or a check enforces r.
func (r Requirement) Enforced() bool { return len(r.Rules)+len(r.Checks) > 0 }

// GapPrefix starts the waiver of a requirement that is testable but not tested
// yet.
const GapPrefix = "gap:"

// Status is "enforced", "waived", "gap" (waived as a known gap) or "open".
func (r Requirement) Status() string {
	switch {
	case r.Enforced():
		return "enforced"
	case strings.HasPrefix(r.Waiver, GapPrefix):
		return "gap"
	case r.Waiver != "":
		return "waived"
	}
	return "open"
}

// AgentChecks and OrchChecks split r's checks by the side they certify.
func (r Requirement) AgentChecks() []string { return filterChecks(r.Checks, false) }
func (r Requirement) OrchChecks() []string  { return filterChecks(r.Checks, true) }

func filterChecks(ids []string, orch bool) []string {
	var out []string
	for _, id := range ids {
		if IsOrchCheck(id) == orch {
			out = append(out, id)
		}
	}
	return out
}

// IsOrchCheck reports whether check id certifies an orchestrator.
func IsOrchCheck(id string) bool { return strings.Contains(id, "/orch/") }

// file is one data file.
type file struct {
	Protocol     string        `json:"protocol"`
	Spec         string        `json:"spec"`
	File         string        `json:"file"` // the spec's file in shared/specs/
	Requirements []Requirement `json:"requirements"`
}

// Spec is the registry of one spec.
type Spec struct {
	Protocol, Title, File string
	Requirements          []Requirement
}

var (
	loadOnce sync.Once
	loaded   []Spec
	loadErr  error
	digest   string
)

// Specs returns the registry, one Spec per protocol, sorted by protocol.
func Specs() ([]Spec, error) {
	loadOnce.Do(func() { loaded, digest, loadErr = load(dataFS) })
	return loaded, loadErr
}

// All returns every requirement, sorted by protocol then in the order of the data.
func All() ([]Requirement, error) {
	specs, err := Specs()
	var out []Requirement
	for _, s := range specs {
		out = append(out, s.Requirements...)
	}
	return out, err
}

// Digest is the SHA-256 of the registry's data files (name and content, in name
// order): "sha256:HEX". Reports and certificates name it.
func Digest() string {
	Specs()
	return digest
}

func load(fsys fs.FS) ([]Spec, string, error) {
	names, err := fs.Glob(fsys, "data/*.json")
	if err != nil {
		return nil, "", err
	}
	sort.Strings(names)
	h := sha256.New()
	var specs []Spec
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path.Base(n), len(b))
		h.Write(b)
		var f file
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, "", fmt.Errorf("%s: %w", n, err)
		}
		if f.Protocol+".json" != path.Base(n) {
			return nil, "", fmt.Errorf("%s: protocol %q does not match the file name", n, f.Protocol)
		}
		for i := range f.Requirements {
			f.Requirements[i].Protocol = f.Protocol
		}
		specs = append(specs, Spec{Protocol: f.Protocol, Title: f.Spec, File: f.File, Requirements: f.Requirements})
	}
	return specs, "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
