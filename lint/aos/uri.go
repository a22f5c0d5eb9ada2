package aos

import (
	"net/url"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// URIAbsolute: URIs should be absolute.
var URIAbsolute = ruleDocs.Rule(lint.Rule{ID: "AOS-URI-001", Protocol: ID, Severity: lint.Warning, Run: checkURIs})

func checkURIs(p *lint.Pass) {
	v := viewOf(p.Msg)
	if !v.request() {
		return
	}
	check := func(ptr string, n *jsonread.Node) {
		if n == nil || n.Kind != jsonread.String || plainAbsoluteURL(n.Str) {
			return
		}
		u, err := url.Parse(n.Str)
		switch {
		case n.Str == "":
			p.Reportf(ptr, "the URL is empty; give an absolute URL such as \"https://example.com/file.pdf\"")
		case err != nil:
			p.Reportf(ptr, "%q is not a URI (%v); give an absolute URL such as \"https://example.com/file.pdf\"", n.Str, err)
		case !u.IsAbs():
			p.Reportf(ptr, "%q is a relative reference; an absolute URL with a scheme is strongly recommended, such as \"https://example.com/report.pdf\"", n.Str)
		}
	}
	// The pointers of the list items are made only for a value that is no plain
	// absolute URL (check judges it again, in full).
	plain := func(n *jsonread.Node) bool { return n == nil || n.Kind != jsonread.String || plainAbsoluteURL(n.Str) }
	fileParts(p.Msg, func(at fileAt, file *jsonread.Node) {
		if u := file.Get("uri"); !plain(u) {
			check(at.ptr()+"/uri", u)
		}
	})
	for _, sl := range sourceLists(v.params) {
		if sl.node == nil {
			continue
		}
		for i, s := range sl.node.Items {
			if u := s.Get("url"); !plain(u) {
				check(jsonread.JoinPointer(sl.ptr, i, "url"), u)
			}
		}
	}
	check("/params/context/agent/provider/url", v.params.Path("context", "agent", "provider", "url"))
}

// plainAbsoluteURL reports whether s is an http or https URL of letters,
// digits and "-._~/?=&" only, which url.Parse takes as absolute without error
// (no escapes, no port, no user info, no IP literal): the common case is
// judged without parsing. Anything else is parsed.
func plainAbsoluteURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "http://"); !ok {
			return false
		}
	}
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '/', c == '?', c == '=', c == '&':
		default:
			return false
		}
	}
	return true
}
