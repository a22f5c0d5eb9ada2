package jsonval

import (
	"reflect"
	"testing"
)

func TestMap(t *testing.T) {
	v := map[string]any{"a": []any{1.0, map[string]any{"b": 2.0}}, "s": "x"}
	cp := Map(v, Same)
	if !reflect.DeepEqual(cp, v) {
		t.Fatalf("Map(Same) = %v, want %v", cp, v)
	}
	cp.(map[string]any)["a"].([]any)[1].(map[string]any)["b"] = 3.0
	if v["a"].([]any)[1].(map[string]any)["b"] != 2.0 {
		t.Error("Map(Same) shares an object with its input")
	}
	double := Map(v, func(x any) any {
		if f, ok := x.(float64); ok {
			return 2 * f
		}
		return x
	})
	want := map[string]any{"a": []any{2.0, map[string]any{"b": 4.0}}, "s": "x"}
	if !reflect.DeepEqual(double, want) {
		t.Errorf("Map(double) = %v, want %v", double, want)
	}
}
