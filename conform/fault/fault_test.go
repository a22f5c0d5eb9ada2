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
	var fs Catalogue
	fs.Add(Fault{Name: "b"})
	fs.Add(Fault{Name: "a"})
	for _, name := range []string{"", "a", "b"} {
		if err := fs.Check("x", name); err != nil {
			t.Errorf("Check(%q) = %v, want nil", name, err)
		}
	}
	err := fs.Check("x", "c")
	if want := `the x engine has no fault "c" (faults: a, b)`; err == nil || err.Error() != want {
		t.Errorf("Check(c) = %v, want %s", err, want)
	}
}

func TestCatalogue(t *testing.T) {
	var c Catalogue
	if got := c.Add(Fault{Name: "b", Doc: "two"}); got != "b" {
		t.Errorf("Add returned %q, want b", got)
	}
	c.Add(Fault{Name: "a", Doc: "one"})
	if got := Names(c.List()); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("List names = %v, want [a b] (sorted)", got)
	}
	if !c.Has("a") || c.Has("c") {
		t.Errorf("Has(a), Has(c) = %v, %v", c.Has("a"), c.Has("c"))
	}
	c.List()[0].Doc = "changed"
	if c.List()[0].Doc != "one" {
		t.Error("List is not a copy")
	}
	for _, name := range []string{"", "a"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%q) did not panic", name)
				}
			}()
			c.Add(Fault{Name: name})
		}()
	}
}
