package main

import (
	"bytes"
	"flag"
	"os"
	"testing"

	aoplintcmd "github.com/aopkit/aopkit/internal/cmd/aoplint"
	"github.com/aopkit/aopkit/lint"
)

var update = flag.Bool("u", false, "rewrite docs/rules.md")

// TestRulesDocUpToDate keeps docs/rules.md equal to what aoplint rules --format
// markdown prints (go test ./cmd/aoplint -run RulesDoc -u rewrites it).
func TestRulesDocUpToDate(t *testing.T) {
	var b bytes.Buffer
	if err := aoplintcmd.WriteRulesMarkdown(&b, lint.Rules()); err != nil {
		t.Fatal(err)
	}
	const path = "../../docs/rules.md"
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/aoplint -run RulesDoc -u)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		t.Errorf("docs/rules.md is stale: run go test ./cmd/aoplint -run RulesDoc -u (or make golden)")
	}
}
