package aoplint_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/pkg/aoplint"
)

// Lint a message from a reader; a context bounds the read.
func ExampleLintContext() {
	msg := `{"a": 1, "a": 2}`
	res, err := aoplint.LintContext(context.Background(), strings.NewReader(msg), aoplint.Options{Name: "msg.json"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, d := range res.Diagnostics {
		if d.Rule == "GEN-JSON-002" {
			fmt.Printf("%s:%d:%d: %s [%s]\n", res.Name, d.Line, d.Column, d.Severity, d.Rule)
		}
	}
	fmt.Println("failed:", res.Failed(aoplint.Error))
	// Output:
	// msg.json:1:10: error [GEN-JSON-002]
	// failed: true
}

// An unknown protocol is an error value, not a diagnostic.
func ExampleOptions_Check() {
	_, err := aoplint.LintContext(context.Background(), strings.NewReader("{}"), aoplint.Options{Protocol: "aop3"})
	fmt.Println(errors.Is(err, aoplint.ErrUnknownProtocol))
	// Output:
	// true
}

// Lint a directory with its .aoplint.yaml applied, and write the report in two
// formats.
func ExampleProject_LintPaths() {
	dir, _ := os.MkdirTemp("", "aoplint-example")
	defer os.RemoveAll(dir)
	// The configuration turns off the rule the message breaks, except below strict/.
	os.WriteFile(filepath.Join(dir, ".aoplint.yaml"), []byte("rules:\n  GEN-JSON-002: off\noverrides:\n  - files: [strict/**]\n    rules:\n      GEN-JSON-002: error\nfiles:\n  unrecognised: error\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "strict"), 0o755)
	for _, name := range []string{"loose.json", "strict/x.json"} {
		os.WriteFile(filepath.Join(dir, name), []byte(`{"type":"event:log","id":"123e4567-e89b-12d3-a456-426614174000","timestamp":"2026-11-22T10:00:00.000Z","payload":{"level":"info","message":"hello","message":"twice"}}`), 0o644)
	}

	p, err := aoplint.OpenProject(aoplint.ProjectOptions{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := p.LintPaths(context.Background(), []string{dir}, aoplint.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.Files {
		rel, _ := filepath.Rel(dir, f.Name)
		fmt.Println(filepath.ToSlash(rel), f.Errors, "errors")
	}
	fmt.Println("fails:", rep.Failed(p.FailOn()))
	var sarif, md strings.Builder
	rep.Write(&sarif, "sarif")
	rep.Write(&md, "markdown")
	fmt.Println(strings.Contains(sarif.String(), `"ruleId": "GEN-JSON-002"`), strings.HasPrefix(md.String(), "### aoplint: ❌ 1 error"))
	// Output:
	// loose.json 0 errors
	// strict/x.json 1 errors
	// fails: true
	// true true
}
