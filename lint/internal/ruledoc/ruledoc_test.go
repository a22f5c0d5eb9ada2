package ruledoc

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
)

func TestRuleTakesItsProse(t *testing.T) {
	f := Parse("test", []byte("X-1:\n  title: a title\n  doc: >-\n    folded\n    text\n  bad: |-\n    line 1\n    line 2\n"))
	r := f.Rule(lint.Rule{ID: "X-1", Spec: "kept §1", Severity: lint.Warning})
	if r.Title != "a title" || r.Doc != "folded text" || r.Bad != "line 1\nline 2" || r.Spec != "kept §1" || r.Good != "" || r.Severity != lint.Warning {
		t.Fatalf("got %+v", r)
	}
}

func TestMistakesPanic(t *testing.T) {
	for _, tc := range []struct{ name, file, id, spec, want string }{
		{"unknown field", "X-1:\n  titel: a\n", "", "", "titel"},
		{"no entry", "X-1:\n  title: a\n", "X-2", "", "holds no rule X-2"},
		{"set twice", "X-1:\n  spec: a\n", "X-1", "b", "set in its Go value too"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Fatalf("panic %v, want one saying %q", r, tc.want)
				}
			}()
			f := Parse("test", []byte(tc.file))
			f.Rule(lint.Rule{ID: tc.id, Spec: tc.spec})
		})
	}
}
