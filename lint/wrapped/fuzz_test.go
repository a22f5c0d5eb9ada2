package wrapped

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// FuzzCheck: any JSON value, checked as a wrapped MCP and A2A message, gives
// findings (never a panic), each with a message, a JSON Pointer and a known severity.
func FuzzCheck(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.json")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},3]`))
	f.Add([]byte(`{"kind":"task"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, _, err := jsonread.Parse(data)
		if err != nil {
			return
		}
		for _, fs := range [][]Finding{CheckMCP(n), CheckA2A(n)} {
			for _, f := range fs {
				if f.Severity < lint.Info || f.Severity > lint.Error || f.Message == "" {
					t.Fatalf("bad finding %+v", f)
				}
				if f.Pointer != "" && f.Pointer[0] != '/' {
					t.Fatalf("pointer %q is not a JSON Pointer", f.Pointer)
				}
			}
		}
	})
}
