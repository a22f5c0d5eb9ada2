package lint

import (
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// TestMemberIsNode: Member finds what Node finds for every pointer of member
// names, over values of every kind where objects are expected.
func TestMemberIsNode(t *testing.T) {
	docs := []string{
		`{"a": {"b": {"c": 1}, "d": [1, 2]}, "e": null, "f": "x"}`,
		`{"a": [{"b": 1}], "a": {"b": 2}}`,
		`{"a": "b", "": {"": 3}}`,
		`[{"a": 1}]`, `"a"`, `3`, `null`, `{}`,
	}
	pointers := []string{"", "/a", "/a/b", "/a/b/c", "/a/b/c/d", "/a/d", "/a/d/x", "/e", "/e/x", "/f", "/f/x", "/x", "/x/y", "/", "//", "/a/"}
	for _, doc := range docs {
		root, _, err := jsonread.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		for _, m := range []*Message{{Root: root}, {}} {
			for _, at := range pointers {
				if got, want := m.Member(at), m.Node(at); got != want {
					t.Errorf("%s: Member(%q) = %v, Node %v", doc, at, got, want)
				}
			}
		}
	}
}
