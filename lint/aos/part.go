package aos

import (
	"encoding/base64"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// PartKind: the Part union is selected by kind.
	PartKind = &lint.Rule{
		ID: "AOS-PART-001", Title: "part kind must be text, file or data", Protocol: ID, Severity: lint.Error,
		Spec: "aos-0.1.0 §3.4 Part Union Type",
		Doc: "A Part \"MUST be one of\" TextPart, FilePart or DataPart, told apart by its kind: \"text\", \"file\" or \"data\" (§3.4). " +
			"A part without kind, or with another kind (\"image\", \"Text\"), is none of them. Tool outputs (ToolCallResult.outputs, §4.6.1.1) are TextPart[]: kind \"text\" only.",
		Bad:  `{"kind": "image", "url": "https://example.com/cat.png"}`,
		Good: `{"kind": "file", "file": {"uri": "https://example.com/cat.png", "mimeType": "image/png"}}`,
		Run:  checkPartKinds,
	}
	// PartBase64: FileWithBytes.bytes is base64.
	PartBase64 = &lint.Rule{
		ID: "AOS-PART-002", Title: "file bytes must be base64", Protocol: ID, Severity: lint.Error,
		Spec: "aos-0.1.0 §3.5.1 FileWithBytes Object",
		Doc:  "FileWithBytes.bytes is the \"Base64 encoded file content\" (§3.5.1): the standard alphabet (A-Z a-z 0-9 + /) with = padding. Raw text, hex or URL-safe base64 is not.",
		Bad:  `{"kind": "file", "file": {"name": "a.txt", "bytes": "hello world!"}}`,
		Good: `{"kind": "file", "file": {"name": "a.txt", "bytes": "aGVsbG8gd29ybGQh"}}`,
		Run:  checkBase64,
	}
	// PartFile: FileWithBytes or FileWithUri, not both, not neither.
	PartFile = &lint.Rule{
		ID: "AOS-PART-003", Title: "file must have bytes or uri, not both", Protocol: ID, Severity: lint.Error,
		Spec: "aos-0.1.0 §3.4.2 FilePart Object; §3.5 FileWithBytes, FileWithUri",
		Doc:  "FilePart.file is FileWithBytes | FileWithUri (§3.4.2): it carries either the content (bytes, §3.5.1) or a reference (uri, §3.5.2). With both, readers disagree on which to use; with neither there is no file.",
		Bad:  `{"kind": "file", "file": {"name": "r.pdf", "bytes": "JVBERi0=", "uri": "https://example.com/r.pdf"}}`,
		Good: `{"kind": "file", "file": {"name": "r.pdf", "uri": "https://example.com/r.pdf"}}`,
		Run:  checkFiles,
	}
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
