package aos

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// SourceKind: the Source union is selected by kind.
var SourceKind = ruleDocs.Rule(lint.Rule{ID: "AOS-SOURCE-001", Protocol: ID, Kinds: []string{"steps/message"}, Severity: lint.Error, Run: checkSourceKinds})

// sourceList is a citation array and its pointer.
type sourceList struct {
	ptr  string
	node *jsonread.Node // nil when absent or no array
}

// sourceLists returns the citation arrays of a message whose params are params
// (the spec's citation and the upstream schema's citations), in an array: no
// map or slice per message.
func sourceLists(params *jsonread.Node) [2]sourceList {
	array := func(n *jsonread.Node) *jsonread.Node {
		if n != nil && n.Kind == jsonread.Array {
			return n
		}
		return nil
	}
	return [2]sourceList{{"/params/citation", array(params.Get("citation"))}, {"/params/citations", array(params.Get("citations"))}}
}

func checkSourceKinds(p *lint.Pass) {
	for _, sl := range sourceLists(viewOf(p.Msg).params) {
		if sl.node == nil {
			continue
		}
		for i, s := range sl.node.Items {
			if s.Kind != jsonread.Object {
				continue
			}
			k := s.Get("kind")
			if k.IsString() && (k.Str == "file" || k.Str == "site") {
				continue // no finding, no pointer made
			}
			ptr := jsonread.JoinPointer(sl.ptr, i)
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
