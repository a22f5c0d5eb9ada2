package aos

import (
	"sync"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// view is what the single-message rules read of an AOS message: the members
// of its root they look at, found in one pass over the root's members by the
// first rule that asks and kept as the message's Parsed for the others (where
// each rule used to Get them again: "method" alone was asked for by seven
// rules a message), and the nodes of the part lists (partNodes), found when
// a rule first walks them.
type view struct {
	root *jsonread.Node
	// The root's members (nil: absent), as root.Get finds each: the last
	// member of a repeated key (FuzzViewRead holds it to Get).
	jsonrpc, id, method, params, result, err *jsonread.Node

	partsMade bool
	parts     [4]*jsonread.Node
}

// viewOf returns m's view, made on the first call for m's tree.
func viewOf(m *lint.Message) *view {
	if v, ok := m.Parsed.(*view); ok && v.root == m.Root {
		return v
	}
	v, _ := views.Get().(*view)
	if v == nil {
		v = new(view)
	}
	v.root = m.Root
	v.read(m.Root)
	if m.Parsed == nil {
		m.Parsed = v
	}
	return v
}

// read finds the members of root the view holds in one pass
// (jsonread.ReadMembers), the last member of a repeated key as root.Get finds it.
func (v *view) read(root *jsonread.Node) { jsonread.ReadMembers(root, v, (*view).slot) }

// slot is where the view holds the member key (nil: none).
func (v *view) slot(key string) **jsonread.Node {
	switch key {
	case "jsonrpc":
		return &v.jsonrpc
	case "id":
		return &v.id
	case "method":
		return &v.method
	case "params":
		return &v.params
	case "result":
		return &v.result
	case "error":
		return &v.err
	}
	return nil
}

// views keeps the views of messages the sequence checker has seen: it is the
// last reader of an AOS message's view (the single-message rules run before it,
// when the message is built), and gives the view back (releaseView) for the
// next message instead of leaving one allocation a message to the collector.
var views sync.Pool

// releaseView gives m's view back to views, emptied: it holds no node of m's
// tree, and a later viewOf(m) (none is made in the driver) finds its root
// changed and reads m again.
func releaseView(m *lint.Message) {
	if v, ok := m.Parsed.(*view); ok && v.root == m.Root && m.Root != nil {
		*v = view{}
		views.Put(v)
	}
}

// request reports whether the message is a request (it has a method): isRequest.
func (v *view) request() bool { return v.method != nil }

// partNodes returns the nodes of the message's part lists (partNodes), found
// on the first call.
func (v *view) partNodes() *[4]*jsonread.Node {
	if !v.partsMade {
		v.parts, v.partsMade = partNodes(v.params), true
	}
	return &v.parts
}
