package aop2

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// Extensions is the member whose object holds vendor data, anywhere in a
// message (§3 Extension Mechanism).
const Extensions = "extensions"

// ExtensionPrefix starts every key of an extensions object (§3: "Keys inside
// extensions MUST start with \"x_\"").
const ExtensionPrefix = "x_"

// ExtensionKeyOK reports whether key may name a member of an extensions object
// (AOP2-EXT-001). aoplint's walk, the reference engine and the conformance check
// aop2/3/extension-keys all ask it.
func ExtensionKeyOK(key string) bool { return strings.HasPrefix(key, ExtensionPrefix) }

// badExtensionKeys calls bad with the JSON Pointer (RFC 6901, from root "") and
// the key of every member of every extensions object in n whose key
// ExtensionKeyOK refuses (Envelope.BadExtensionKeys). The values of an
// extensions object are vendor data: not looked into, as aoplint's walk does
// not. Members are visited in key order, once per key (the last of duplicates).
func badExtensionKeys(n *jsonread.Node, ptr string, bad func(pointer, key string)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case jsonread.Object:
		for _, k := range keys(n) {
			p := ptr + "/" + jsonread.EscapeToken(k)
			v := n.Get(k)
			if k != Extensions {
				badExtensionKeys(v, p, bad)
				continue
			}
			if v.Kind == jsonread.Object {
				for _, x := range keys(v) {
					if !ExtensionKeyOK(x) {
						bad(p+"/"+jsonread.EscapeToken(x), x)
					}
				}
			}
		}
	case jsonread.Array:
		for i, e := range n.Items {
			badExtensionKeys(e, ptr+"/"+strconv.Itoa(i), bad)
		}
	}
}

// keys are the distinct member keys of an object, sorted.
func keys(n *jsonread.Node) []string {
	ks := make([]string, 0, len(n.Members))
	for _, m := range n.Members {
		ks = append(ks, m.Key)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}
