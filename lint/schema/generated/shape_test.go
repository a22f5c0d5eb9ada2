package generated

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/schemas"
)

// allShapes returns every shape reachable from the files' roots.
func allShapes() []*Shape {
	seen := map[*Shape]bool{}
	var out []*Shape
	var walk func(s *Shape)
	walk = func(s *Shape) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		walk(s.Items)
		for _, p := range s.Props {
			walk(p.Shape)
		}
	}
	files, _ := fs.Glob(schemas.FS, "*/*.json")
	for _, f := range files {
		walk(Members(f))
	}
	return out
}

// TestShapeMember: Member finds every prop of a shape, with its shape, and no
// key that is not one, whether by schemagen's find (every generated shape with
// props has one) or (a shape made by hand) by halves.
func TestShapeMember(t *testing.T) {
	shapes := allShapes()
	if len(shapes) < 100 {
		t.Fatalf("%d shapes reached", len(shapes))
	}
	for _, s := range shapes {
		if len(s.Props) > 0 && s.find == nil {
			t.Fatalf("generated shape with props %v has no find", s.Props)
		}
	}
	// Shapes made by hand (no find), to test the search by halves.
	var big Shape
	for i := 0; i < 48; i++ {
		big.Props = append(big.Props, Prop{Key: string(rune('a'+i%26)) + strings.Repeat("k", i/26+1), Shape: &big})
	}
	sortProps(big.Props)
	shapes = append(shapes, &big, &Shape{})
	for _, s := range shapes {
		known := map[string]*Shape{}
		for _, p := range s.Props {
			known[p.Key] = p.Shape
		}
		for _, p := range s.Props {
			for _, k := range []string{p.Key, p.Key + "x", "x" + p.Key, strings.ToUpper(p.Key), p.Key[:len(p.Key)/2], ""} {
				want, wok := known[k]
				got, ok := s.Member(k)
				if ok != wok || got != want {
					t.Fatalf("Member(%q) = %p, %v; want %p, %v", k, got, ok, want, wok)
				}
			}
		}
	}
}

func sortProps(ps []Prop) {
	for i := range ps {
		for j := i + 1; j < len(ps); j++ {
			if ps[j].Key < ps[i].Key {
				ps[i], ps[j] = ps[j], ps[i]
			}
		}
	}
}

func BenchmarkShapeMember(b *testing.B) {
	shapes := allShapes()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range shapes {
			for _, p := range s.Props {
				s.Member(p.Key)
			}
			s.Member("zz_unknown")
		}
	}
}
