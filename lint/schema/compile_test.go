package schema_test

import (
	"testing"

	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/lint/schema/draft7"
	"github.com/aopkit/aopkit/schemas"
)

// BenchmarkCompileResponse is the first invalid aop2 RESPONSE's extra cost: its
// schema and the files it refers to, decoded and compiled.
func BenchmarkCompileResponse(b *testing.B) {
	const file = "aop2/response.schema.json"
	refs, err := schema.Refs(file)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		set := draft7.NewSet()
		for _, f := range append([]string{file}, refs...) {
			data, err := schemas.FS.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			if err := set.Add(schemas.BaseURL+f, data); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := set.Compile(schemas.BaseURL + file); err != nil {
			b.Fatal(err)
		}
	}
}
