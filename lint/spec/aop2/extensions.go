package aop2

import (
	"maps"
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

// BadExtensionKeys calls bad with the JSON Pointer (RFC 6901, from root "") and
// the key of every member of every extensions object in v, a decoded JSON value
// (encoding/json's map[string]any and []any), whose key ExtensionKeyOK refuses.
// The values of an extensions object are vendor data: not looked into, as
// aoplint's walk does not. Members are visited in key order.
func BadExtensionKeys(v any, bad func(pointer, key string)) { badExtensionKeys(v, "", bad) }

func badExtensionKeys(v any, ptr string, bad func(pointer, key string)) {
	switch t := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			p := ptr + "/" + jsonread.EscapeToken(k)
			if k != Extensions {
				badExtensionKeys(t[k], p, bad)
				continue
			}
			if ext, ok := t[k].(map[string]any); ok {
				for _, x := range slices.Sorted(maps.Keys(ext)) {
					if !ExtensionKeyOK(x) {
						bad(p+"/"+jsonread.EscapeToken(x), x)
					}
				}
			}
		}
	case []any:
		for i, e := range t {
			badExtensionKeys(e, ptr+"/"+strconv.Itoa(i), bad)
		}
	}
}
