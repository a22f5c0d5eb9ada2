package output

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzSafeText: whatever a file name or message holds, the text format prints it on
// one line of printable characters.
func FuzzSafeText(f *testing.F) {
	for _, s := range []string{"plain", "a\nb", "\x1b[31mred", "bidi \u202e", "\xff\xfe", "ünï"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{SafeText(s), SafePath(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%q -> invalid UTF-8 %q", s, out)
			}
			for _, r := range out {
				if !unicode.IsPrint(r) {
					t.Fatalf("%q -> %q keeps %U", s, out, r)
				}
			}
		}
	})
}

// FuzzArtifactURI: every path becomes a URI reference that parses, relative ones under
// %SRCROOT% decoding back to the cleaned path.
func FuzzArtifactURI(f *testing.F) {
	for _, s := range []string{"a.json", "dir with space/a:b#c%.json", "../x", "/abs/y", "<stdin>", "a?b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if p == "" || strings.ContainsRune(p, 0) {
			return
		}
		a := artifactOf(p)
		u, err := url.Parse(a.URI)
		if err != nil {
			t.Fatalf("%q -> %q: %v", p, a.URI, err)
		}
		if a.URIBaseID == SrcRoot {
			if u.Scheme != "" || u.Path != filepath.ToSlash(filepath.Clean(p)) {
				t.Fatalf("%q -> %q decodes to scheme %q path %q", p, a.URI, u.Scheme, u.Path)
			}
		}
	})
}
