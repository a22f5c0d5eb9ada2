package aos

import (
	"encoding/base64"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// PartKind: the Part union is selected by kind.
	PartKind = ruleDocs.Rule(lint.Rule{ID: "AOS-PART-001", Protocol: ID, Severity: lint.Error, Run: checkPartKinds})
	// PartBase64: FileWithBytes.bytes is base64.
	PartBase64 = ruleDocs.Rule(lint.Rule{ID: "AOS-PART-002", Protocol: ID, Severity: lint.Error, Run: checkBase64})
	// PartFile: FileWithBytes or FileWithUri, not both, not neither.
	PartFile = ruleDocs.Rule(lint.Rule{ID: "AOS-PART-003", Protocol: ID, Severity: lint.Error, Run: checkFiles})
)

// partList is where an array of parts sits in a request.
type partList struct {
	ptr      string
	textOnly bool
}

// partLists are the Part arrays of a request: Message.content,
// AgentTrigger.content and ToolCallResult.outputs (also in the upstream nested
// toolCallResult). partNodes finds them in a message.
var partLists = [4]partList{
	{"/params/message/content", false},
	{"/params/trigger/content", false},
	{"/params/result/outputs", true},
	{"/params/toolCallResult/result/outputs", true},
}

// partNodes finds the arrays of partLists in a request whose params are params
// (nil: absent, or no array).
func partNodes(params *jsonread.Node) [4]*jsonread.Node {
	array := func(n *jsonread.Node) *jsonread.Node {
		if n != nil && n.Kind == jsonread.Array {
			return n
		}
		return nil
	}
	return [4]*jsonread.Node{
		array(params.Path("message", "content")),
		array(params.Path("trigger", "content")),
		array(params.Path("result", "outputs")),
		array(params.Path("toolCallResult", "result", "outputs")),
	}
}

// partsOf returns the nodes of m's part lists (partNodes, by the index of
// partLists), found once for the rules that read the lists (checkPartKinds,
// checkBase64, checkFiles, checkURIs): the view's.
func partsOf(m *lint.Message) *[4]*jsonread.Node { return viewOf(m).partNodes() }

func checkPartKinds(p *lint.Pass) {
	if !isRequest(p.Msg) {
		return
	}
	for li, list := range partsOf(p.Msg) {
		if list == nil {
			continue
		}
		pl := &partLists[li]
		for i, part := range list.Items {
			if part.Kind != jsonread.Object {
				continue // the schema reports the type
			}
			k := part.Get("kind")
			if k.IsString() && (k.Str == "text" || !pl.textOnly && (k.Str == "file" || k.Str == "data")) {
				continue // a kind the list allows: no finding, no pointer made
			}
			ptr := jsonread.JoinPointer(pl.ptr, i)
			allowed := "text, file or data"
			if pl.textOnly {
				allowed = "text (outputs are TextPart[])"
			}
			switch {
			case k == nil:
				p.Claim(ptr)
				hint := ""
				switch {
				case part.Has("text"):
					hint = `; it has "text", so add "kind": "text"`
				case part.Has("file"):
					hint = `; it has "file", so add "kind": "file"`
				case part.Has("data"):
					hint = `; it has "data", so add "kind": "data"`
				}
				p.Reportf(ptr, "part has no \"kind\": a Part is told apart by kind, one of %s%s", allowed, hint)
			case k.Kind != jsonread.String:
				p.Claim(ptr)
				p.Reportf(ptr+"/kind", "part kind is %s; it must be one of %s", kindOf(k), allowed)
			case pl.textOnly && k.Str != "text":
				p.Claim(ptr)
				p.Reportf(ptr+"/kind", "tool output part kind is %q; ToolCallResult.outputs holds TextPart only: kind must be \"text\"", k.Str)
			case k.Str != "text" && k.Str != "file" && k.Str != "data":
				p.Claim(ptr)
				p.Reportf(ptr+"/kind", "part kind %q is not a Part type; it must be one of %s", k.Str, allowed)
			}
		}
	}
}

// fileAt is where a FilePart's file object is: its part list and index. Its
// pointer is made only for a finding.
type fileAt struct {
	list string
	i    int
}

func (a fileAt) ptr() string { return jsonread.JoinPointer(a.list, a.i, "file") }

// fileParts calls f for every FilePart's file object of m.
func fileParts(m *lint.Message, f func(at fileAt, file *jsonread.Node)) {
	for li, list := range partsOf(m) {
		if list == nil {
			continue
		}
		for i, part := range list.Items {
			if part.Get("kind").String() != "file" {
				continue
			}
			if file := part.Get("file"); file != nil && file.Kind == jsonread.Object {
				f(fileAt{partLists[li].ptr, i}, file)
			}
		}
	}
}

func checkBase64(p *lint.Pass) {
	if !isRequest(p.Msg) {
		return
	}
	fileParts(p.Msg, func(at fileAt, file *jsonread.Node) {
		b := file.Get("bytes")
		if b == nil || b.Kind != jsonread.String {
			return
		}
		if msg := base64Problem(b.Str); msg != "" {
			p.Reportf(at.ptr()+"/bytes", "bytes %s: FileWithBytes.bytes must be standard base64 (§3.5.1)", msg)
		}
	})
}

// base64Problem says what is wrong with s as standard base64, or "".
func base64Problem(s string) string {
	if _, err := base64.StdEncoding.DecodeString(s); err == nil {
		return ""
	}
	if _, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return "lack the = padding"
	}
	if _, err := base64.URLEncoding.DecodeString(s); err == nil {
		return "use the URL-safe alphabet (- and _)"
	}
	if _, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		return "use the URL-safe alphabet (- and _)"
	}
	if strings.ContainsAny(s, " \n\r\t") {
		if _, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), "")); err == nil {
			return "contain whitespace or line breaks"
		}
	}
	if len(s) > 24 {
		s = s[:24] + "..."
	}
	return "(\"" + s + "\") are not valid base64"
}

func checkFiles(p *lint.Pass) {
	if !isRequest(p.Msg) {
		return
	}
	fileParts(p.Msg, func(at fileAt, file *jsonread.Node) {
		hasB, hasU := file.Has("bytes"), file.Has("uri")
		if hasB != hasU {
			return // one of them: no finding
		}
		ptr := at.ptr()
		switch {
		case hasB && hasU:
			p.Claim(ptr)
			p.Reportf(ptr, "file has both \"bytes\" and \"uri\": it is FileWithBytes or FileWithUri, not both; keep one")
		case !hasB && !hasU:
			p.Claim(ptr)
			if file.Has("url") {
				p.Reportf(ptr+"/url", "file has \"url\" but FileWithUri names it \"uri\" (§3.5.2); rename it")
				return
			}
			p.Reportf(ptr, "file has neither \"bytes\" (FileWithBytes, §3.5.1) nor \"uri\" (FileWithUri, §3.5.2); add one")
		}
	})
}
