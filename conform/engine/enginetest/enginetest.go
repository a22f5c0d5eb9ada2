// Package enginetest holds what the engines' tests share: playing a scenario
// through the harness against the in-process mockagent on virtual time (play.go)
// and golden transcripts.
package enginetest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden compares got with the golden file at path, naming the first line that
// differs; with update it rewrites the file instead.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s differs from the golden file at line %d (go test -update rewrites it):\n got: %s\nwant: %s", path, i+1, g, w)
			return
		}
	}
}
