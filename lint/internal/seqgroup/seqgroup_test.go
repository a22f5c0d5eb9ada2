package seqgroup

import (
	"testing"

	"github.com/aopkit/aopkit/lint"
)

// reporter reports once per message under the rule of the pass it is given,
// and panics when told to.
type reporter struct{ panics bool }

func (r reporter) Observe(p *lint.Pass) {
	p.ReportSevf(p.Rule.Severity, "", "from %s", p.Rule.ID)
	if r.panics {
		panic("boom")
	}
}

func (reporter) Finish(*lint.Pass) {}

// TestObserveRules: each member reports under its own rule into the group's
// pass, and the pass keeps the group's rule afterwards, also after a member
// panicked (the driver names that rule in its internal-error diagnostic).
func TestObserveRules(t *testing.T) {
	a := &lint.Rule{ID: "T-001", Severity: lint.Error}
	b := &lint.Rule{ID: "T-002", Severity: lint.Warning}
	c := &lint.Rule{ID: "T-003", Severity: lint.Info}
	panics := false
	Register("t-seq", []Entry[int]{
		{Rule: a, Make: func(*int) lint.Checker { return reporter{} }},
		{Rule: b, Make: func(*int) lint.Checker { return reporter{} }},
		{Rule: c, Make: func(*int) lint.Checker { return reporter{panics: panics} }},
	}, func(*int) {})

	g := a.NewChecker()
	p := lint.NewPass(a, &lint.Message{})
	g.Observe(p)
	if p.Rule != a {
		t.Fatalf("after Observe the pass reports under %s, want %s", p.Rule.ID, a.ID)
	}
	ds := p.Diagnostics()
	if len(ds) != 3 {
		t.Fatalf("got %d diagnostics, want 3: %+v", len(ds), ds)
	}
	for i, r := range []*lint.Rule{a, b, c} {
		if ds[i].Rule != r.ID || ds[i].Severity != r.Severity || ds[i].Message != "from "+r.ID {
			t.Errorf("diagnostic %d: %+v, want rule %s", i, ds[i], r.ID)
		}
	}

	panics = true
	g = a.NewChecker()
	p = lint.NewPass(a, &lint.Message{})
	func() {
		defer func() { _ = recover() }()
		g.Observe(p)
	}()
	if p.Rule != a {
		t.Errorf("after a member panicked the pass reports under %s, want %s", p.Rule.ID, a.ID)
	}
}
