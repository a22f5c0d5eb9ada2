// Package jsonval rebuilds JSON values as encoding/json decodes them into any
// (map[string]any, []any and leaves), for the reference engines. Messages are
// read through the typed wire structs of lint/spec/<protocol>, not walked here.
package jsonval

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
