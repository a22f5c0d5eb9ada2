// Package fault is the one type of a planted fault: a way the reference agent
// (mockagent) or a reference engine (conform/engine/<protocol>) breaks one
// rule on purpose, by name, so that the checks that judge it can be seen
// failing. It imports nothing of aopkit, so both sides may use it.
package fault

import (
	"fmt"
	"slices"
	"strings"
)

// Fault is one rule an implementation can be told to break.
type Fault struct {
	Name string // stable, kebab-case: "stop-heartbeats"
	// Rule is the rule or check a mockagent fault breaks: a lint rule ID or a
	// conform check ID, plus a few words.
	Rule string
	// Spec is the requirement an engine fault breaks ("aop2 §7").
	Spec string
	Doc  string // one sentence: what is done instead of the right thing
	// Fails are the orchestrator-side checks a run of an engine fault fails:
	// `aopconform run --side orchestrator --protocol P -- aopconform engine
	// --protocol P --fault NAME`, the comparison with the reference engine
	// (P/orch/ref/...) aside. With Exact, the run fails exactly these over the
	// whole suite; without, at least these (the run may fail more, and a check
	// it fails only by a timing a loaded machine may spoil, a flood read per
	// chunk, is not named). `aopconform engine-faults` prints them and
	// cmd/aopconform's TestOrchestratorSide asserts them. A mockagent fault
	// names none (its Rule says what it breaks).
	Fails []string
	// Exact: Fails is every check the fault's run fails, not a lower bound.
	Exact bool
}

// Catalogue is the faults of one implementation (a reference engine, a mock
// agent), each declared once, where it is played: Add records a fault and
// returns its name, the value the code that plays it compares with, so that no
// fault can be played without its doc or documented without being playable.
// Faults are added while the package initialises (package-level variables) and
// only read afterwards.
type Catalogue struct {
	faults []Fault
}

// Add records f and returns its name. An empty or repeated name panics: a
// programming error any test of the package catches.
func (c *Catalogue) Add(f Fault) string {
	if f.Name == "" || Lookup(c.faults, f.Name) != nil {
		panic(fmt.Sprintf("fault: empty or repeated fault name %q", f.Name))
	}
	c.faults = append(c.faults, f)
	return f.Name
}

// List returns the faults, sorted by name (a copy).
func (c *Catalogue) List() []Fault {
	fs := slices.Clone(c.faults)
	slices.SortFunc(fs, func(a, b Fault) int { return strings.Compare(a.Name, b.Name) })
	return fs
}

// Has reports whether the catalogue holds a fault named name.
func (c *Catalogue) Has(name string) bool { return Lookup(c.faults, name) != nil }

// Lookup returns the fault of fs named name, or nil.
func Lookup(fs []Fault, name string) *Fault {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i]
		}
	}
	return nil
}

// Names lists the names of fs, in their order.
func Names(fs []Fault) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// Check validates the fault an engine is told to play: nil for none ("") or
// one of the catalogue's, else an error naming the engine and listing its
// faults. Every reference engine checks its harness.Config.EngineFault here.
func (c *Catalogue) Check(engine, name string) error {
	if name == "" || c.Has(name) {
		return nil
	}
	return fmt.Errorf("the %s engine has no fault %q (faults: %s)", engine, name, strings.Join(Names(c.List()), ", "))
}
