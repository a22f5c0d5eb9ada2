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

func TestCheck(t *testing.T) {
	fs := []Fault{{Name: "a"}, {Name: "b"}}
	for _, name := range []string{"", "a", "b"} {
		if err := Check("x", fs, name); err != nil {
			t.Errorf("Check(%q) = %v, want nil", name, err)
		}
	}
	err := Check("x", fs, "c")
	if want := `the x engine has no fault "c" (faults: a, b)`; err == nil || err.Error() != want {
		t.Errorf("Check(c) = %v, want %s", err, want)
	}
}
