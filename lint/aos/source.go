package aos

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// SourceKind: the Source union is selected by kind.
var SourceKind = &lint.Rule{
	ID: "AOS-SOURCE-001", Title: "source kind must be file or site", Protocol: ID, Kinds: []string{"steps/message"}, Severity: lint.Error,
	Spec: "aos-0.1.0 §3.7 Source Union Type",
	Doc: "A citation Source \"MUST be one of\" FileSource (kind \"file\", with id and name) or SiteSource (kind \"site\", with url) (§3.7). " +
		"A source without kind, or with another kind (\"web\", \"document\"), is neither.",
	Bad:  `{"kind": "web", "url": "https://example.com/pricing"}`,
	Good: `{"kind": "site", "url": "https://example.com/pricing"}`,
	Run:  checkSourceKinds,
}

// sourceLists returns the citation arrays (the spec's citation and the upstream
// schema's citations).
func sourceLists(root *jsonread.Node) map[string]*jsonread.Node {
	out := map[string]*jsonread.Node{}
	for _, k := range []string{"citation", "citations"} {
		if n := root.Path("params", k); n != nil && n.Kind == jsonread.Array {
			out["/params/"+k] = n
		}
	}
	return out
}

func checkSourceKinds(p *lint.Pass) {
	for base, arr := range sourceLists(p.Msg.Root) {
		for i, s := range arr.Items {
			ptr := pointer(base, i)
			if s.Kind != jsonread.Object {
				continue
			}
			k := s.Get("kind")
			switch {
			case k == nil:
				p.Claim(ptr + "/kind")
				hint := ""
				if s.Has("id") && s.Has("name") {
					hint = `; it has id and name, so add "kind": "file"`
				} else if s.Has("url") {
					hint = `; it has url, so add "kind": "site"`
				}
				p.Reportf(ptr, "source has no \"kind\": a Source is told apart by kind, \"file\" or \"site\"%s", hint)
			case k.Kind != jsonread.String:
				p.Claim(ptr + "/kind")
				p.Reportf(ptr+"/kind", "source kind is %s; it must be \"file\" or \"site\"", kindOf(k))
			case k.Str != "file" && k.Str != "site":
				p.Claim(ptr + "/kind")
				p.Reportf(ptr+"/kind", "source kind %q is not a Source type; it must be \"file\" (FileSource) or \"site\" (SiteSource)", k.Str)
			}
		}
	}
}
