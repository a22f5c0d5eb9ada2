package schema_test

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/schema/draft7"
	"github.com/aopkit/aopkit/schemas"
)

// BenchmarkCompileResponse is the first invalid aop2 RESPONSE's extra cost: its
// schema and the files it refers to, decoded and compiled (as lint/schema does).
func BenchmarkCompileResponse(b *testing.B) {
	const file = "aop2/response.schema.json"
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		set := &draft7.Set{Load: func(u string) (any, error) {
			data, err := schemas.FS.ReadFile(strings.TrimPrefix(u, schemas.BaseURL))
			if err != nil {
				return nil, err
			}
			return draft7.Decode(data)
		}}
		if _, err := set.Compile(schemas.BaseURL + file); err != nil {
			b.Fatal(err)
		}
	}
}
