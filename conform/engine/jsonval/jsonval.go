// Package jsonval walks JSON values as encoding/json decodes them into any
// (map[string]any, []any and leaves), for the reference engines and the
// orchestrator-side checks.
package jsonval

// String is the string at the path keys of v: "" when a step is no object or
// the value there is no string.
func String(v any, keys ...string) string {
	s, _ := At(v, keys...).(string)
	return s
}

// At is the value at the path keys of v: nil when a step is no object or has
// no such member.
func At(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// Map is v rebuilt with leaf applied to each value in it that is no object or
// array; objects and arrays are new, so that Map(v, Same) is a deep copy.
func Map(v any, leaf func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Map(e, leaf)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Map(e, leaf)
		}
		return out
	}
	return leaf(v)
}

// Same is the leaf function that keeps each leaf as it is.
func Same(v any) any { return v }
