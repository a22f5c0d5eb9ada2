package schema_test

import (
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/lint/schema/generated"
	"github.com/aopkit/aopkit/lint/schema/ofrecord"
)

// invalidWork is every fixture document some schema of its protocol rejects,
// with that schema: the messages whose diagnostics are written.
func invalidWork(b *testing.B) (files []string, roots []*jsonread.Node) {
	all := schemaFiles(b)
	for proto, list := range corpus(b) {
		if proto == "" {
			continue
		}
		for _, data := range list {
			root, _, err := jsonread.Parse(data)
			if err != nil || root == nil {
				continue
			}
			for _, f := range all {
				if len(f) > len(proto) && f[:len(proto)+1] == proto+"/" {
					if es, _ := ofrecord.Validate(f, root); len(es) > 0 {
						files, roots = append(files, f), append(roots, root)
						break
					}
				}
			}
		}
	}
	if len(files) == 0 {
		b.Fatal("no invalid document")
	}
	return files, roots
}

// BenchmarkDiagnosticsDraft7 writes the diagnostics of invalid messages as aoplint
// does (lint/schema/draft7).
func BenchmarkDiagnosticsDraft7(b *testing.B) {
	files, roots := invalidWork(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range files {
			if _, err := schema.Validate(files[j], roots[j]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files)), "ns/message")
}

// BenchmarkDiagnosticsOfRecord is the same with gojsonschema.
func BenchmarkDiagnosticsOfRecord(b *testing.B) {
	files, roots := invalidWork(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range files {
			if _, err := ofrecord.Validate(files[j], roots[j]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files)), "ns/message")
}

// BenchmarkGeneratedValid is the generated validators' fast path: every fixture
// document with each schema of its protocol that the generated code finds it
// valid against (the answer aoplint takes without draft7), a working set small
// enough to stay in cache, so that it measures the validators, not memory.
func BenchmarkGeneratedValid(b *testing.B) {
	all := schemaFiles(b)
	var files []string
	var roots []*jsonread.Node
	for proto, list := range corpus(b) {
		for _, data := range list {
			root, _, err := jsonread.Parse(data)
			if err != nil || root == nil || len(data) > 4096 {
				continue
			}
			for _, f := range all {
				if (proto == "" || len(f) > len(proto) && f[:len(proto)+1] == proto+"/") && generated.Validate(f, root) == generated.Valid {
					files, roots = append(files, f), append(roots, root)
				}
			}
		}
	}
	if len(files) == 0 {
		b.Fatal("no valid document")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range files {
			if generated.Validate(files[j], roots[j]) != generated.Valid {
				b.Fatal("not valid any more")
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files)), "ns/message")
}
