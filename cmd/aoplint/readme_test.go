package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestReadmeQuickStart runs the README's first quick-start command (in-process, from the
// repository root) and compares what it prints with the output the README shows; and
// checks that the README's test command is what CI runs.
func TestReadmeQuickStart(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	const cmd = "go run ./cmd/aoplint "
	i := strings.Index(readme, cmd)
	if i < 0 {
		t.Fatal("README has no `go run ./cmd/aoplint` quick start")
	}
	args := strings.Fields(readme[i+len(cmd) : i+strings.Index(readme[i:], "\n")])
	t.Chdir("../..")
	var out, errb bytes.Buffer
	code := run(append([]string{"aoplint"}, args...), strings.NewReader(""), &out, &errb)
	if code != 1 {
		t.Errorf("exit %d, the README says 1", code)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()+errb.String()), "\n") {
		if !strings.Contains(readme, l) {
			t.Errorf("the README does not show the line %q", l)
		}
	}
	if !strings.Contains(readme, "bash .ci/run") {
		t.Error("the README's test command is not bash .ci/run")
	}
	mk, err := os.ReadFile("Makefile")
	if err != nil || !strings.Contains(string(mk), "test:\n\tbash .ci/run") {
		t.Errorf("make test is not bash .ci/run: %v", err)
	}
}
