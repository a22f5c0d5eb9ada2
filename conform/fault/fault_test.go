package fault

import (
	"slices"
	"testing"
)

func TestLookupAndNames(t *testing.T) {
	fs := []Fault{{Name: "a", Doc: "one"}, {Name: "b", Doc: "two"}}
	if f := Lookup(fs, "b"); f == nil || f.Doc != "two" {
		t.Errorf("Lookup(b) = %+v", f)
	}
	if f := Lookup(fs, "c"); f != nil {
		t.Errorf("Lookup(c) = %+v, want nil", f)
	}
	if got := Names(fs); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Names = %v", got)
	}
}
