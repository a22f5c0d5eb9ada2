package aof_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/aof"
	"github.com/aopkit/aopkit/lint/linter"
)

// seeds adds every file of fixtures/aof (valid and invalid, data directories too).
func seeds(f *testing.F) {
	filepath.WalkDir("../../fixtures/aof", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".golden") {
			return nil
		}
		if data, err := os.ReadFile(path); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
		return nil
	})
}

// FuzzDetectAOF lints arbitrary input with aof forced and with detection; it must
// not panic.
func FuzzDetectAOF(f *testing.F) {
	seeds(f)
	f.Add([]byte("AOF/1 {\"protocol\":\"aof\"}\nAOF/1 {"))
	f.Fuzz(func(t *testing.T, data []byte) {
		linter.LintBytes("fuzz.json", data, linter.Options{Protocol: "aof"})
		linter.LintBytes("fuzz.json", data, linter.Options{})
		linter.LintBytes("runs/TASK-2026-02-09-057/run_heartbeat.json", data, linter.Options{})
	})
}

// FuzzFrontmatter parses arbitrary task files; it must not panic, and what it
// accepts has a mapping of values.
func FuzzFrontmatter(f *testing.F) {
	seeds(f)
	f.Add([]byte("---\nid: TASK-2026-02-09-057\nmetadata:\n  a:\n    - b: 1\n      c: [x, 'y', \"z\"]\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, err := aof.ParseFrontmatter(data)
		if err == nil && fm.Values == nil {
			t.Fatal("accepted frontmatter without values")
		}
	})
}
