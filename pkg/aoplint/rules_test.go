package aoplint

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryRuleListed: every package under lint/ that registers a rule
// (lint.Register) is linked into the library, so Rules() lists what `aoplint
// rules` lists (it missed the baseline's and suppression's rules: 172 for 174).
func TestEveryRuleListed(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	err = filepath.WalkDir("../../lint", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), "lint.Register(") {
			return nil
		}
		pkg := "github.com/aopkit/aopkit/" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../../")))
		if !deps[pkg] {
			t.Errorf("%s registers rules, and pkg/aoplint does not link %s: Rules() misses them", path, pkg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
