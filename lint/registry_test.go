package lint

import (
	"sort"
	"testing"
)

// The registry keeps rules sorted by ID whatever the order they register in,
// finds them by ID (exactly, then ignoring case) and refuses a duplicate ID.
func TestRegistry(t *testing.T) {
	for _, id := range []string{"TEST-B-002", "TEST-A-001", "TEST-C-001", "TEST-B-001", "TEST-A-002", "TEST-Z-009"} {
		Register(&Rule{ID: id})
	}
	Register(&Rule{ID: "TEST-D-001"}, &Rule{ID: "TEST-0-000"})
	Register(&Rule{ID: "TEST-E-001"}, &Rule{ID: "TEST-E-002"}, &Rule{ID: "TEST-E-003"}) // in order, before TEST-Z-009
	rs := Rules()
	if !sort.SliceIsSorted(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID }) {
		t.Errorf("Rules() not sorted by ID")
	}
	if len(rs) != 11 {
		t.Errorf("%d rules, want 11", len(rs))
	}
	for _, id := range []string{"TEST-0-000", "TEST-A-001", "TEST-B-002", "TEST-E-002", "TEST-Z-009"} {
		if r := LookupRule(id); r == nil || r.ID != id {
			t.Errorf("LookupRule(%q) = %v", id, r)
		}
	}
	if r := LookupRule("test-b-001"); r == nil || r.ID != "TEST-B-001" {
		t.Errorf("LookupRule ignoring case: %v", r)
	}
	if r := LookupRule("TEST-B-003"); r != nil {
		t.Errorf("LookupRule of an unknown ID: %v", r)
	}
	defer func() {
		if recover() == nil {
			t.Error("a duplicate ID registered")
		}
	}()
	Register(&Rule{ID: "TEST-E-003"})
}
