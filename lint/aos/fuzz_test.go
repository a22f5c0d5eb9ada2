package aos_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/linter"
)

// FuzzDetectAos lints arbitrary bytes with aos detected and forced: nothing may panic.
// Seeds: every fixture of fixtures/aos.
func FuzzDetectAos(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "aos", dir, "*"))
		for _, file := range files {
			if filepath.Ext(file) == ".golden" {
				continue
			}
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"decision":"modify","message":"m","modifiedRequest":{"jsonrpc":"2.0","id":1,"method":"protocols/MCP","params":{"jsonrpc":"2.0"}}}}`))
	f.Add([]byte(`{"executed":{"executionId":"e1"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []linter.Options{{}, {Protocol: "aos"}} {
			res := linter.LintBytes("fuzz.json", data, opts)
			for _, d := range res.Diagnostics {
				if strings.Contains(d.Message, "internal error") {
					t.Fatalf("%s: %s", d.Rule, d.Message)
				}
			}
		}
	})
}
