package aos

import (
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// TestSigOfRecord: a ToolCallRequest inside a transcript/1 record keeps its text
// (the lazy signature) like a bare message's, and that text gives the signature
// requestSig makes from the tree. The record's nodes count from the record's first
// byte while Raw is the msg's own text (lint.Message.RawAt).
func TestSigOfRecord(t *testing.T) {
	const msg = `{"jsonrpc":"2.0","id":1,"method":"aos/toolCallRequest","params":{"toolCallRequest":{"name":"bash","arguments":{"cmd":"ls"}}}}`
	record := `{"aopkit":"transcript/1","seq":1,"from":"agent","msg":` + msg + `}`
	for _, tc := range []struct {
		name string
		line string
		msg  func(root *jsonread.Node) *jsonread.Node
	}{
		{"bare", msg, func(root *jsonread.Node) *jsonread.Node { return root }},
		{"record", record, func(root *jsonread.Node) *jsonread.Node { return root.Get("msg") }},
	} {
		root, _, err := jsonread.Parse([]byte(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		mr := tc.msg(root)
		m := &lint.Message{Root: mr, Raw: []byte(tc.line)[mr.Offset:mr.End], RawAt: mr.Offset}
		tcr := mr.Path("params", "toolCallRequest")
		s := sigOf(m, tcr)
		if s.done || s.raw == "" {
			t.Errorf("%s: the signature was made at once (%+v), want the object's text kept", tc.name, s)
			continue
		}
		if want := `{"name":"bash","arguments":{"cmd":"ls"}}`; s.raw != want {
			t.Errorf("%s: kept %q, want %q", tc.name, s.raw, want)
		}
		if got, want := s.get(), requestSig(tcr); got != want {
			t.Errorf("%s: signature %q, want requestSig's %q", tc.name, got, want)
		}
	}
}
