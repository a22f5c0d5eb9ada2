package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestPreCommitHook runs testdata/script/precommit_hook.txtar: the shipped
// .pre-commit-hooks.yaml under the real pre-commit, in a scratch repository. It
// skips when pre-commit or git is missing, or this checkout is no git repository,
// except in CI (CI=true), where any of these fails the test.
func TestPreCommitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds aoplint with pre-commit: not in -short")
	}
	repo := mustAbs("../..")
	home := t.TempDir()
	testscript.Run(t, testscript.Params{
		Files: []string{"../../testdata/script/precommit_hook.txtar"},
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", mustAbs("../../fixtures"))
			env.Setenv("REPO", repo)
			env.Setenv("PRE_COMMIT_HOME", filepath.Join(home, "pre-commit"))
			// pre-commit builds aoplint with the caller's environment: share the
			// module and build caches, so no download or rebuild is needed.
			for _, k := range []string{"GOMODCACHE", "GOCACHE", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN"} {
				if v := goEnv(k); v != "" {
					env.Setenv(k, v)
				}
			}
			env.Setenv("HOME", home)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond != "precommit" {
				return false, errors.New("unknown condition " + cond)
			}
			missing := ""
			for _, tool := range []string{"pre-commit", "git", "go"} {
				if _, err := exec.LookPath(tool); err != nil {
					missing = tool + " is not installed"
				}
			}
			if missing == "" {
				if err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Run(); err != nil {
					missing = repo + " is no git repository with a commit"
				}
			}
			if missing == "" {
				return true, nil
			}
			if os.Getenv("CI") == "true" {
				return false, errors.New("the pre-commit hook test needs it in CI: " + missing)
			}
			return false, nil
		},
	})
}

func goEnv(key string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
